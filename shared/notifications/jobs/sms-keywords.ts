/**
 * The opt-out and opt-in keywords of a reply SMS (the carriers' and CTIA's standard set, which ACS
 * documents for its own opt-out handling). A reply counts only when it is the keyword alone, in any
 * case, with surrounding spaces and a final full stop or exclamation mark ignored: "Stop texting me
 * about the bake sale" is a message, not a keyword.
 */
const OPT_OUT = new Set(['STOP', 'STOPALL', 'UNSUBSCRIBE', 'END', 'QUIT', 'CANCEL', 'OPTOUT']);
const OPT_IN = new Set(['START', 'UNSTOP', 'OPTIN']);

export type SmsKeyword = 'stop' | 'start';

/** The keyword a reply is, or undefined for any other message. */
export function smsKeywordOf(message: string): SmsKeyword | undefined {
  const word = message.trim().replace(/[.!]+$/, '').toUpperCase();
  if (OPT_OUT.has(word)) return 'stop';
  if (OPT_IN.has(word)) return 'start';
  return undefined;
}
