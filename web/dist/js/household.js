// A household in the interview, free of the DOM so that it is unit-tested
// on its own: the lists a schema declares and the questions asked of each
// member, what each person is called on the page (the name the applicant
// typed, else "Person 2"), the field names that use it ("Maria's age"),
// and the renumbering when a person is removed. See docs/console.md
// (Interview) and docs/language.md#households.
import { capitalise, humanize, memberOf } from './answers.js';
/** listsOf reads a schema's lists, in the schema's order. */
export function listsOf(fields) {
    const lists = new Map();
    const all = [...fields];
    for (const f of all) {
        if (f.list)
            lists.set(f.field_id, { id: f.field_id, title: f.list.title, max: f.list.max, noun: f.list.noun || 'person', names: [] });
    }
    for (const f of all) {
        const m = f.member;
        if (m && m.index === 0)
            lists.get(m.list)?.names.push(m.name);
    }
    return lists;
}
/** listOfField is the list a field id belongs to: the list's own count, or a member's answer. */
export function listOfField(lists, fieldId) {
    return lists.get(memberOf(fieldId)?.list ?? fieldId);
}
/** memberFieldId is the id of one member's answer: "member[2].age". */
export function memberFieldId(list, index, name) {
    return `${list}[${index}].${name}`;
}
/**
 * inHousehold reports whether a field id is about someone the answers
 * count: a member's answer of a list only while their index is below the
 * list's count (explain-failure's missing_fields can name every member the
 * rules could take); any other id always.
 */
export function inHousehold(answers, fieldId) {
    const m = memberOf(fieldId);
    if (!m)
        return true;
    const n = countOf(answers, m.list);
    return n !== null && m.index < n;
}
/** countOf reads how many members an answer gives the list, or null when it gives no whole number. */
export function countOf(answers, list) {
    const json = answers.get(list)?.json;
    return json !== undefined && /^\d+$/.test(json) ? Number(json) : null;
}
/** countAnswer is the answer that a list holds n members. */
export function countAnswer(n) {
    return { text: String(n), json: String(n) };
}
/** plural names several members: "people" for "person", "children" for "child", else with an s. */
export function plural(noun) {
    const irregular = { person: 'people', child: 'children', man: 'men', woman: 'women' };
    return irregular[noun.toLowerCase()] ?? noun + 's';
}
/**
 * personName is what member index (from 0) of a list is called on the
 * page: the name the applicant typed for them, else the list's noun and
 * their number from 1 ("Person 2").
 */
export function personName(list, labels, index) {
    return labels[index]?.trim() || `${capitalise(list.noun)} ${index + 1}`;
}
/**
 * whoIs names the person an id of one member's is about, a field's or a
 * value's ("member[1].countable": "Maria", else "Person 2"), as
 * personName calls them; undefined for an id about no member of a list
 * the schema declares. labels gives the names typed, by list.
 */
export function whoIs(lists, labels, id) {
    const m = memberOf(id);
    const list = m ? lists.get(m.list) : undefined;
    return m && list ? personName(list, labels.get(list.id) ?? [], m.index) : undefined;
}
/** possessive writes whose something is: "Maria's", "Person 3's", "James'". */
export function possessive(name) {
    return /s$/i.test(name) ? `${name}'` : `${name}'s`;
}
/**
 * withoutWho is a member field's words without the "Person 2: " the
 * schema puts before each member's copy of a question or label, so that
 * the page can say who it is about its own way.
 */
export function withoutWho(text, list, index) {
    if (!text)
        return '';
    const who = `${capitalise(list.noun)} ${index + 1}: `;
    return text.startsWith(who) ? text.slice(who.length) : text;
}
/** lowerFirst writes a label for use inside a phrase: "Age" -> "age"; a label starting with an acronym keeps it. */
function lowerFirst(text) {
    return /^[A-Z][A-Z]/.test(text) ? text : text.charAt(0).toLowerCase() + text.slice(1);
}
/**
 * memberLabel names one member's answer for people, with who it is about:
 * "Maria's age", "Person 3's age" (from the field's label, else its name
 * in words). Never the field id.
 */
export function memberLabel(field, list, labels) {
    const m = field.member;
    if (!m)
        return field.label || field.field_id;
    const what = withoutWho(field.label, list, m.index) || humanize(m.name);
    return `${possessive(personName(list, labels, m.index))} ${lowerFirst(what)}`;
}
/**
 * withPeople is a copy of a schema's fields in which every member's answer
 * is labelled with who it is about (memberLabel), so that whatever names a
 * field by its label (the answers, the reasons, the decision, the graph)
 * says "Maria's age". labels gives the names typed, by list.
 */
export function withPeople(fields, lists, labels) {
    const out = new Map();
    for (const [id, f] of fields) {
        const list = f.member ? lists.get(f.member.list) : undefined;
        out.set(id, list ? { ...f, label: memberLabel(f, list, labels.get(list.id) ?? []) } : f);
    }
    return out;
}
/**
 * renumberedId is where an id lands when member index of list is removed:
 * the removed member's answers are gone (null), a later member's move one
 * place down, and every other id stays.
 */
export function renumberedId(id, list, index) {
    const m = memberOf(id);
    if (!m || m.list !== list || m.index < index)
        return id;
    if (m.index === index)
        return null;
    return memberFieldId(list, m.index - 1, m.name);
}
/** renumberMap is a copy of a map by field id without member index of list, the later members moved down (renumberedId), in the same order. */
export function renumberMap(m, list, index) {
    const out = new Map();
    for (const [id, v] of m) {
        const to = renumberedId(id, list, index);
        if (to !== null)
            out.set(to, v);
    }
    return out;
}
/** renumberIds is renumberMap for a list of field ids (the interview's history). */
export function renumberIds(ids, list, index) {
    return ids.map((id) => renumberedId(id, list, index)).filter((id) => id !== null);
}
/**
 * withoutPerson is a copy of names by person with person index removed,
 * the later ones moved down. The names are typed one by one, so the array
 * may have holes (a name for person 2 only): they keep their places.
 */
export function withoutPerson(labels, index) {
    return Array.from({ length: Math.max(labels.length - (index < labels.length ? 1 : 0), 0) }, (_, i) => labels[i < index ? i : i + 1] ?? '');
}
