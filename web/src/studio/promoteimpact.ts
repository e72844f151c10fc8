// The promotion screen's impact: before promoting a section's newer
// version, decide the applicants of one of the team's caseloads on the
// rulebook's release in force and on that release with the version in its
// section's place, as promoting it would make it
// (docs/impact.md#rulebook-candidates). Caseloads belong to projects, so
// the panel first chooses the project whose files to use.

import { h } from '../dom.js';
import type { StudioClient } from './client.js';
import { impactPanel } from './impact.js';
import type { Project, Rulebook, RulesetSummary } from './types.js';
import { errorMessage } from './ui.js';

/** A proposal: a section of the rulebook and a version to put in its place. */
interface Proposal {
  letter: string;
  sectionId: string;
  version: RulesetSummary;
}

/** proposals are every section's other published versions, as the promotion rows offer them. */
function proposals(rb: Rulebook, rulesets: RulesetSummary[]): Proposal[] {
  return rb.ruleset_refs.flatMap((ref) =>
    rulesets
      .filter((r) => r.section_id === ref.section_id && r.ruleset_id !== ref.ruleset_id)
      .map((version) => ({ letter: ref.letter, sectionId: ref.section_id, version })),
  );
}

/** promoteImpact draws the panel, or nothing when no section has another version to promote. */
export function promoteImpact(client: StudioClient, rb: Rulebook, rulesets: RulesetSummary[]): HTMLElement | null {
  const list = proposals(rb, rulesets);
  if (!list.length) return null;
  const proposal = h(
    'select',
    { id: 'impact-proposal' },
    ...list.map((p, i) => h('option', { value: String(i) }, `Section ${p.letter}: ${p.version.name}, ${p.version.slug} ${p.version.ruleset_version}`)),
  );
  const project = h('select', { id: 'impact-project' });
  const body = h('div', { id: 'impact-body' });
  const draw = (): void => {
    if (!project.value) {
      body.replaceChildren(h('p', { class: 'hint' }, 'Files of applicants are kept by projects; create a project to upload one.'));
      return;
    }
    body.replaceChildren(
      impactPanel(client, {
        projectId: project.value,
        candidate: () => {
          const p = list[Number(proposal.value)] ?? list[0]!;
          return { rulebook: rb.rulebook_id, section_id: p.sectionId, ruleset_id: p.version.ruleset_id };
        },
        describe: 'Decide every applicant of a file on the rulebook’s release in force and on that release with the chosen version in its section’s place, and count whose outcome would change. Nothing is promoted.',
        log: { kind: 'rulebook', slug: () => Promise.resolve(rb.slug) },
      }),
    );
  };
  project.addEventListener('change', draw);
  void client
    .call<Project[]>('GET', '/projects?limit=100')
    .then((projects) => {
      project.replaceChildren(...projects.map((p) => h('option', { value: p.project_id }, p.name)));
      draw();
    })
    .catch((err) => body.replaceChildren(h('p', { class: 'alert', role: 'alert' }, errorMessage(err))));
  return h(
    'section',
    { id: 'promote-impact', 'aria-labelledby': 'promote-impact-heading' },
    h('h3', { id: 'promote-impact-heading' }, 'Whom a promotion would move, among real applicants'),
    h('div', { class: 'field' }, h('label', { for: 'impact-proposal' }, 'Version to try'), proposal),
    h('div', { class: 'field' }, h('label', { for: 'impact-project' }, 'Project whose files of applicants to use'), project),
    body,
  );
}
