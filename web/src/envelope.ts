// The audit envelope a person copies to replay a decision: what was asked
// (the request to send again) and what identifies the answer (ids,
// digests, engine version, inputs hash). The API never echoes the inputs,
// so the console, which holds them, writes them down.

import { fieldValuesText, inquiryContext, objectText, type Answer } from './answers.js';
import type { Decision } from './types.js';

/**
 * auditEnvelope is the envelope as indented JSON text. The request member
 * is the /decide body to send again, field values written exactly as they
 * were sent, with the decision date the rules were applied as of;
 * replaying it must give the same inputs_hash, and with the same
 * content_digest and engine_version, the same decision.
 */
export function auditEnvelope(d: Decision, answers: Map<string, Answer>, declined: Iterable<string>): string {
  // A rulebook decision is replayed on the release it evaluated, whatever
  // was published since.
  const target: [string, string][] = d.rulebook_id
    ? [['rulebook_id', JSON.stringify(d.rulebook_id)], ...(d.release ? [['release_id', JSON.stringify(d.release.release_id)] as [string, string]] : [])]
    : [['ruleset_id', JSON.stringify(d.ruleset_id ?? '')]];
  const request: [string, string][] = [...target, ['field_values', fieldValuesText(answers)]];
  const ic = inquiryContext(declined);
  if (ic) {
    request.push(['inquiry_context', JSON.stringify(ic)]);
  }
  // The date the rules were applied as of: a replay on another day must
  // ask for the same one.
  if (d.decision_date) {
    request.push(['decision_date', JSON.stringify(d.decision_date)]);
  }
  const envelope: [string, string][] = [
    ['decision', JSON.stringify(d.decision)],
    ['decision_id', JSON.stringify(d.decision_id)],
    ['decision_time', JSON.stringify(d.decision_time)],
    ...(d.decision_date ? [['decision_date', JSON.stringify(d.decision_date)] as [string, string]] : []),
    ['slug', JSON.stringify(d.slug)],
    ...target.slice(0, 1),
    ['ruleset_version', JSON.stringify(d.ruleset_version)],
    ['content_digest', JSON.stringify(d.content_digest)],
    ['engine_version', JSON.stringify(d.engine_version)],
    ['inputs_hash', JSON.stringify(d.inputs_hash)],
    ['request', objectText(request)],
  ];
  return indent(objectText(envelope));
}

/**
 * indent lays out compact JSON text two spaces a level without parsing it,
 * so numbers keep the exact spelling they were sent with.
 */
export function indent(json: string): string {
  let out = '';
  let depth = 0;
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const c = json.charAt(i);
    if (inString) {
      out += c;
      if (c === '\\') {
        out += json.charAt(++i);
      } else if (c === '"') {
        inString = false;
      }
      continue;
    }
    switch (c) {
      case '"':
        inString = true;
        out += c;
        break;
      case '{':
      case '[': {
        const close = c === '{' ? '}' : ']';
        if (json.charAt(i + 1) === close) {
          out += c + close;
          i++;
          break;
        }
        depth++;
        out += c + '\n' + '  '.repeat(depth);
        break;
      }
      case '}':
      case ']':
        depth--;
        out += '\n' + '  '.repeat(depth) + c;
        break;
      case ',':
        out += ',\n' + '  '.repeat(depth);
        break;
      case ':':
        out += ': ';
        break;
      default:
        out += c;
    }
  }
  return out;
}
