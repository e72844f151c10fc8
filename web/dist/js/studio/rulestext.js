// Writing values into rules text, as the rules language reads them.
/** ruleString writes text as a rules-language string literal: quoted, with \ and " escaped (the only escapes). */
export function ruleString(text) {
    return '"' + text.replace(/\\/g, '\\\\').replace(/"/g, '\\"') + '"';
}
