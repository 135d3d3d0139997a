/**
 * C0 and C1 controls (line breaks and tabs among them), DEL, and the Unicode
 * line and paragraph separators: what no id holds, and what can end a line
 * or forge one. One class for every check and every escape of them.
 */
export const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
