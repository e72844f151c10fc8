// The authoring API's shapes the studio reads and writes, taken from the
// types generated from the API's OpenAPI document (clients/ts, regenerated
// by `make clients`), so a change to the API shows up here as a type error
// rather than as a blank on screen.

import type { components } from '../../../clients/ts/src/schema.js';

type S = components['schemas'];

export type Project = S['Project'];
export type ProjectCreated = S['ProjectCreated'];
export type TestCase = S['Case'];
export type Draft = S['Draft'];
export type TestResult = S['TestResult'];
export type Source = S['Source'];
export type SourceList = S['SourceList'];
export type SourceUpload = S['SourceUpload'];
export type UploadedSource = S['UploadedSource'];
export type Duplicate = S['Duplicate'];
export type SourceStatus = S['SourceStatus'];
export type ReviewReport = S['ReviewReport'];
export type Check = S['Check'];
export type PublishResult = S['PublishResult'];
export type RulesetSummary = S['RulesetSummary'];

/** Who is signed in: GET /console/session's answer (outside the OpenAPI document). */
export type { SessionInfo as Who } from '../transport.js';

export type DraftSymbols = S['DraftSymbols'];
export type FormattedRules = S['FormattedRules'];
export type SuggestedCases = S['SuggestedCases'];
export type SuggestedCase = S['SuggestedCase'];
export type DraftDiff = S['DraftDiff'];
export type Change = S['Change'];
export type SourceText = S['SourceText'];
export type SourceClause = S['SourceClause'];
export type ClauseCitation = S['ClauseCitation'];

export type Rulebook = S['Rulebook'];
export type RulebookRef = S['RulebookRef'];
export type Release = S['Release'];
export type ReleaseHistoryEntry = S['ReleaseHistoryEntry'];
export type RulebookSchema = S['RulebookSchema'];
export type Promotion = S['Promotion'];
export type DraftCheck = S['DraftCheck'];
export type CheckDiagnostic = S['Diagnostic'];
export type TextPosition = S['TextPosition'];
export type ServerCompletion = S['Completion'];
