// The Generate screen's form: the server's models, what the model should
// do (a new draft, or a refinement of the ruleset in force), the provider
// key for this one generation, and the two ways to start. The key is read
// once, as the request leaves, and its field emptied: nothing keeps it.
import { h } from '../dom.js';
import { field, radioChoice } from './ui.js';
/** generateForm builds the Generate screen's form. */
export function generateForm() {
    const model = field('gen-model', 'Model', h('select', {}, h('option', { value: '' }, 'The server’s default model')), 'Loading the server’s models…');
    const modelHint = model.row.querySelector('.hint');
    let models = [];
    const showBudget = () => {
        const m = models.find((x) => x.name === model.control.value) ?? models.find((x) => x.default);
        if (modelHint)
            modelHint.textContent = m ? `With this model the prompt may count up to ${m.token_budget.toLocaleString('en')} tokens.` : 'The server chooses its default model.';
    };
    model.control.addEventListener('change', showBudget);
    const modeName = 'gen-mode';
    const modeChoice = (value, label, hint, checked) => radioChoice(modeName, value, label, hint, checked);
    const mode = h('fieldset', { class: 'control', id: 'gen-mode' }, h('legend', {}, 'What the model should do'), modeChoice('fresh', 'Write a new draft', 'from the active sources, the guidance and the tests.', true), modeChoice('refine', 'Refine the ruleset in force', 'make the smallest change that passes the tests.', false));
    const key = field('provider-key', 'Provider key', h('input', { type: 'password', class: 'wide', autocomplete: 'off', spellcheck: 'false' }), 'Your model provider’s key, for this generation only: it is sent with the request and not kept, on this page or on the server. Type it again for the next one.');
    const startButton = h('button', { type: 'button', id: 'generate', class: 'secondary' }, 'Generate');
    const testButton = h('button', { type: 'submit', id: 'generate-and-test' }, 'Generate and test');
    const form = h('form', { id: 'generate-form', novalidate: true, 'aria-labelledby': 'generate-heading' }, model.row, mode, key.row, h('p', { class: 'hint' }, '“Generate and test” waits for the tests’ results; “Generate” starts the generation and you can leave this screen while it runs.'), h('div', { class: 'buttons' }, testButton, startButton));
    return {
        form,
        testButton,
        startButton,
        setModels(list) {
            models = list;
            if (models.length) {
                model.control.replaceChildren(...models.map((m) => h('option', { value: m.name, selected: m.default }, m.default ? `${m.name} (the server’s default)` : m.name)));
            }
            showBudget();
        },
        request() {
            key.setError('');
            if (!key.control.value.trim()) {
                key.setError('Type your provider key: the model is called with it, and the server has none of its own.');
                key.control.focus();
                return null;
            }
            const checked = mode.querySelector('input:checked');
            const body = { mode: checked?.value ?? 'fresh' };
            if (model.control.value)
                body.model = model.control.value;
            return body;
        },
        takeKey() {
            const headers = { 'X-Provider-Key': key.control.value };
            key.control.value = '';
            return headers;
        },
    };
}
