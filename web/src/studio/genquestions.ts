// The draft's source questions on the Generate screen: each with its
// quote, the question and the readings the text allows; settling one adds
// it as guidance for the next generation and marks it resolved on the
// draft (the note's `settles`).

import { announce, h, idFor } from '../dom.js';
import { loadDraft, newIdempotencyKey, type StudioClient } from './client.js';
import { type Guidance, type GuidanceList, type SourceQuestion, settledReading, settleText } from './generation.js';
import { alertBox, busy, errorMessage } from './ui.js';

/**
 * sourceQuestions is the questions' summary and list, and load, which
 * reads them (with the guidance that settles them) afresh; a failure to
 * load is shown in alert.
 */
export function sourceQuestions(
  client: StudioClient,
  projectId: string,
  alert: { show(text: string): void },
): { summary: HTMLElement; list: HTMLElement; load(): Promise<void> } {
  const base = `/projects/${encodeURIComponent(projectId)}`;
  const list = h('ul', { id: 'source-questions', class: 'checks' });
  const summary = h('p', { id: 'questions-summary', class: 'hint' }, 'Loading the draft’s source questions…');
  let guidance: Guidance[] = [];

  const questionItem = (q: SourceQuestion): HTMLElement => {
    const settled = settledReading(q, guidance) ?? (q.resolved ? q.provisional_reading : null);
    const id = idFor('question', q.id);
    const heading = h('h4', { id: id + '-heading', tabindex: '-1' }, q.question);
    const quote = h('figure', { class: 'quote' }, h('blockquote', {}, q.quote), h('figcaption', { class: 'hint' }, 'From the sources'));
    if (settled !== null) {
      return h(
        'li',
        { class: 'card check status-pass', id },
        heading,
        quote,
        h('p', { class: 'settled' }, h('span', { class: 'badge badge-pass' }, 'Settled'), ' Read as: ', settled),
      );
    }
    const readings = [...q.candidate_readings];
    if (q.provisional_reading && !readings.includes(q.provisional_reading)) readings.unshift(q.provisional_reading);
    const name = id + '-reading';
    const choices = readings.map((r, i) =>
      h(
        'div',
        { class: 'choice' },
        h('input', { type: 'radio', name, id: `${name}-${i}`, value: r, checked: r === q.provisional_reading || (!q.provisional_reading && i === 0) }),
        h('label', { for: `${name}-${i}` }, r, r === q.provisional_reading ? ' ' : null, r === q.provisional_reading ? h('span', { class: 'badge badge-info' }, 'Used in the draft for now') : null),
      ),
    );
    const error = alertBox(id + '-error');
    const settle = h('button', { type: 'button', class: 'small' }, 'Settle with this reading');
    const item = h(
      'li',
      { class: 'card check status-warn', id },
      heading,
      quote,
      h('fieldset', { class: 'control' }, h('legend', {}, 'Readings the text allows'), ...choices),
      error.el,
      h('div', { class: 'buttons' }, settle),
    );
    settle.addEventListener('click', () => {
      void busy(settle, async () => {
        error.clear();
        const chosen = item.querySelector<HTMLInputElement>(`input[name="${name}"]:checked`)?.value;
        if (!chosen) return;
        try {
          const note = await client.call<Guidance>(
            'POST',
            `${base}/guidance`,
            { guidance_text: settleText(q, chosen), process_type: 'rule_generation', settles: q.id },
            { 'Idempotency-Key': newIdempotencyKey() },
          );
          guidance.push(note);
          // The note marked the question resolved on the draft as well.
          const next = questionItem({ ...q, resolved: true });
          item.replaceWith(next);
          next.querySelector<HTMLElement>('h4')?.focus();
          announce('Settled: the next generation follows this reading.');
        } catch (err) {
          error.show(errorMessage(err));
        }
      });
    });
    return item;
  };

  const load = async (): Promise<void> => {
    try {
      const [draft, notes] = await Promise.all([loadDraft(client, projectId), client.call<GuidanceList>('GET', `${base}/guidance`)]);
      guidance = notes.guidance ?? [];
      const qs = draft?.source_questions ?? [];
      const open = qs.filter((q) => !q.resolved && settledReading(q, guidance) === null).length;
      summary.textContent = qs.length
        ? `${qs.length === 1 ? 'The model asked one question' : `The model asked ${qs.length} questions`} about the sources (${open ? `${open} still open` : 'all settled'}). Settle each with the reading the team chooses: it becomes guidance, and the next generation follows it.`
        : 'The draft raises no question about its sources.';
      list.replaceChildren(...qs.map(questionItem));
    } catch (err) {
      summary.textContent = 'The source questions could not be loaded.';
      alert.show(errorMessage(err));
    }
  };

  return { summary, list, load };
}
