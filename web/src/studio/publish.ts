// Publishing: the draft goes through the same gates as every publish (it
// compiles, every test passes, every declared source binds to an uploaded,
// licensed source, every quote is in its source) and becomes the next
// version under the project's slug. Who may use it is chosen before
// publishing: as the version in force now (the default: a public programme
// stays public), everyone, or the team only; the answer says which it got.
// What the gates found is shown first;
// publishing past failing tests needs an explicit confirmation that names
// what fails. What is in force under the address, with its visibility and
// archive, is drawn by published.ts; what publishing would change, by the
// Changes screen.

import { announce, append, h } from '../dom.js';
import { loadDraft, newIdempotencyKey, StudioError, type StudioClient } from './client.js';
import { reasons } from './caseform.js';
import { gates } from './gates.js';
import { draftSlug } from './projectform.js';
import { publishedPanel } from './published.js';
import { studioHref } from './routes.js';
import { visibilityWords } from './published.js';
import type { Draft, PublishResult, RulesetSummary, TestResult } from './types.js';
import { alertBox, busy, confirmDialog, errorMessage, field, radioChoice } from './ui.js';

/**
 * Published is a publish answer with who may use the new version and why.
 * (The generated types may still know only the older, always private,
 * answer.)
 */
type Published = Omit<PublishResult, 'visibility'> & {
  visibility: 'public' | 'private';
  /** requested, kept from the version the slug pointed at, or new_slug (a new address starts private). */
  visibility_from?: 'requested' | 'kept' | 'new_slug';
};

/** visibilityReason says, after the visibility, where it came from. */
export function visibilityReason(from: Published['visibility_from']): string {
  switch (from) {
    case 'kept':
      return ' (as the version before it)';
    case 'requested':
      return ' (as you chose)';
    case 'new_slug':
      return ' (a new address starts private; make it public below)';
    default:
      return '';
  }
}

/** keepHint says what "as the version in force now" means for current. */
export function keepHint(current: Pick<RulesetSummary, 'visibility' | 'ruleset_version'> | null): string {
  if (!current) return 'nothing is in force at this address yet, so the new version starts private to your team.';
  return current.visibility === 'public'
    ? `version ${current.ruleset_version} is public, so the new version is public too: applicants keep the programme.`
    : `version ${current.ruleset_version} is private to your team, so the new version is too.`;
}

/** publishView draws the publish screen of project into container. */
export async function publishView(client: StudioClient, projectId: string, container: HTMLElement): Promise<void> {
  const alert = alertBox('publish-error');
  const gateList = h('ul', { id: 'gates', class: 'gates' });
  const result = h('section', { id: 'publish-result', 'aria-labelledby': 'published-heading', hidden: true });
  const slug = field('publish-slug', 'Publish under', h('input', { type: 'text', class: 'wide', autocomplete: 'off', spellcheck: 'false' }), 'The ruleset’s address; it comes from the rules’ “ruleset” line.');
  const name = field('publish-name', 'Display name (optional)', h('input', { type: 'text', class: 'wide', autocomplete: 'off' }), 'Leave empty to use the name in the rules.');
  const submit = h('button', { type: 'submit', id: 'publish' }, 'Publish');
  const visibilityName = 'publish-visibility';
  const visibility = h(
    'fieldset',
    { class: 'control', id: visibilityName },
    h('legend', {}, 'Who can use the new version'),
    radioChoice(visibilityName, 'keep', 'As the version in force now', keepHint(null), true),
    radioChoice(visibilityName, 'public', 'Everyone', 'applicants can use it in the console, without signing in.', false),
    radioChoice(visibilityName, 'private', 'Only your team', 'applicants can no longer use this address until it is made public again.', false),
  );
  const inForce = publishedPanel(client, (current) => {
    const hint = visibility.querySelector(`#${visibilityName}-keep-hint`);
    if (hint) hint.textContent = ' — ' + keepHint(current);
  });
  let draft: Draft | null = null;

  const drawGates = (d: Draft): void => {
    gateList.replaceChildren(
      ...gates(d).map((g) =>
        h(
          'li',
          { class: 'gate ' + (g.ok ? 'pass' : 'fail') },
          h('strong', {}, g.ok ? 'Passes: ' : 'Fails: '),
          g.name,
          g.problems.length ? h('ul', {}, ...g.problems.map((p) => h('li', {}, p))) : null,
        ),
      ),
    );
  };

  const showResult = (r: Published): void => {
    const failures: TestResult[] = r.failures;
    const heading = h('h3', { id: 'published-heading', tabindex: '-1' }, r.reused ? 'Already published: nothing changed' : `Published as version ${r.version}`);
    result.replaceChildren();
    append(
      result,
      heading,
      h(
        'dl',
        { class: 'facts' },
        h('div', {}, h('dt', {}, 'Address'), h('dd', {}, h('code', { id: 'published-slug' }, r.slug))),
        h('div', {}, h('dt', {}, 'Who can use it'), h('dd', { id: 'published-visibility' }, visibilityWords(r.visibility) + visibilityReason(r.visibility_from))),
        h('div', {}, h('dt', {}, 'Tests'), h('dd', {}, `${r.tests_passing} of ${r.tests_total} pass`)),
        h(
          'div',
          {},
          h('dt', {}, 'Quotes'),
          h('dd', {}, `${r.provenance_report.totals.verified} verified, ${r.provenance_report.totals.flagged} not found, ${r.provenance_report.totals.uncited} criteria uncited`),
        ),
      ),
      failures.length ? h('div', { class: 'notice' }, h('p', {}, 'Published with failing tests:'), h('ul', {}, ...failures.map((f) => h('li', {}, `${f.name}: ${reasons(f).join(' ')}`)))) : null,
      r.findings.length
        ? h('div', { class: 'notice', id: 'advisories' }, h('p', {}, 'Advice from the checks (not blocking):'), h('ul', {}, ...r.findings.map((f) => h('li', {}, f.message))))
        : null,
      r.source_check.findings.length ? h('div', { class: 'notice' }, h('p', {}, 'Source check:'), h('ul', {}, ...r.source_check.findings.map((f) => h('li', {}, f.message)))) : null,
      r.review_hint ? h('p', {}, 'Next step: ', r.review_hint.message) : null,
      r.visibility === 'public' ? null : h('p', {}, 'Applicants can use it in the console once it is public: see below.'),
    );
    result.hidden = false;
    heading.focus();
    void inForce.show(r.slug);
  };

  const publish = async (force: boolean): Promise<void> => {
    alert.clear();
    const body: Record<string, unknown> = {};
    if (slug.control.value.trim()) body['slug'] = slug.control.value.trim();
    if (name.control.value.trim()) body['name'] = name.control.value.trim();
    if (force) body['force_unsafe'] = true;
    const chosen = visibility.querySelector<HTMLInputElement>(`input[name="${visibilityName}"]:checked`)?.value ?? 'keep';
    if (chosen !== 'keep') body['visibility'] = chosen;
    try {
      const r = await client.call<Published>('POST', `/projects/${encodeURIComponent(projectId)}/publish`, body, { 'Idempotency-Key': newIdempotencyKey() });
      announce(`Published ${r.slug}.`);
      showResult(r);
    } catch (err) {
      alert.show(errorMessage(err));
      if (err instanceof StudioError && err.reason === 'tests_failed' && !force && draft) {
        const testsGate = gates(draft).find((g) => g.overridable);
        const ok = await confirmDialog(
          'Publish with failing tests?',
          [
            h('p', {}, 'These tests fail. Publishing anyway is recorded, and applicants could get decisions your team has said are wrong:'),
            h('ul', { id: 'force-failures' }, ...(testsGate?.problems ?? []).map((p) => h('li', {}, p))),
          ],
          'Publish anyway',
          'Do not publish',
        );
        if (ok) await publish(true);
      }
    }
  };

  const form = h(
    'form',
    {
      id: 'publish-form',
      class: 'studio-form',
      'aria-label': 'Publish',
      onsubmit: (e: Event) => {
        e.preventDefault();
        void busy(submit, async () => {
          try {
            draft = await loadDraft(client, projectId);
            if (draft) drawGates(draft);
          } catch {
            // The publish answer says what is wrong.
          }
          await publish(false);
        });
      },
    },
    slug.row,
    name.row,
    visibility,
    h('div', { class: 'buttons' }, submit),
  );

  container.append(
    h('h2', { tabindex: '-1' }, 'Publish'),
    h('p', { class: 'hint' }, 'Publishing makes the rules the next version under their address. Checked first:'),
    gateList,
    h(
      'p',
      {},
      h('a', { href: studioHref({ kind: 'project', projectId, screen: 'changes' }), id: 'see-changes' }, 'See what publishing would change for applicants'),
      ', with an example of each change and the law behind it.',
    ),
    form,
    alert.el,
    result,
    inForce.el,
  );
  try {
    draft = await loadDraft(client, projectId);
    if (draft) {
      slug.control.value = draftSlug(draft.rules);
      drawGates(draft);
      await inForce.show(slug.control.value);
    } else {
      gateList.replaceChildren(h('li', {}, 'There are no rules yet: write them on the Rules screen.'));
    }
  } catch (err) {
    alert.show(errorMessage(err));
  }
}
