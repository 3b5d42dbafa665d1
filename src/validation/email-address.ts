/**
 * A "valid e-mail address" of the WHATWG HTML Living Standard (section 4.10.5.1.5, the `type=email` input):
 * `1*( atext / "." ) "@" label *( "." label )`, each label 1 to 63 letters, digits or hyphens, starting and
 * ending with a letter or digit. It is the grammar browsers check; like it, a domain without a dot
 * (`user@localhost`) is accepted, and quoted local parts, comments and IP literals of RFC 5322 are not.
 */
const validEmailAddress =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

/** Whether `text` is a valid e-mail address by the WHATWG HTML grammar. */
export function isValidEmailAddress(text: string): boolean {
  return validEmailAddress.test(text);
}
