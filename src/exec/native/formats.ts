// The text formats Venachain's system contracts accept (core/vm/sc_tool.go): one place for the
// patterns so every contract checks a name the same way.

/** A user, node or organisation name: letters, digits, underscore or Han characters, 1 to 128 of them (no hyphen). */
export function isVenachainName(text: string): boolean {
  return /^[a-zA-Z0-9_\p{Script=Han}]{1,128}$/u.test(text);
}

/** An e-mail address as Venachain checks one: a prefix match (anything may follow the top-level domain), at most 64 bytes. */
export function isVenachainEmail(text: string): boolean {
  return /^[a-zA-Z0-9]+@([A-Za-z0-9][-A-Za-z0-9]+\.)+[A-Za-z]{2,14}/.test(text) && Buffer.byteLength(text) <= 64;
}

/** A phone number: 3 to 13 digits. */
export function isVenachainPhone(text: string): boolean {
  return /^[0-9]{3,13}$/.test(text);
}
