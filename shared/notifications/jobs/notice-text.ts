import type { SecretKind } from '../../children/child-account';
import type { NoticeKind } from '../../messages/notice-message';

/** The words of a notice, for push (title and body) and e-mail (subject and text). */
export interface NoticeText {
  title: string;
  body: string;
}

/** What a notice's text is composed from, read from the database at send time. */
export interface NoticeFacts {
  kind: NoticeKind;
  /** The name the parent gave the child: its username. Personal data: only ever in the message itself. */
  childName: string;
  secretKind: SecretKind;
  /** Consecutive failures that locked the account. */
  failures: number;
}

/**
 * The text of a notice: which child, what happened, what to do. Composed when it is sent, never
 * stored, queued or logged.
 */
export function noticeText(facts: NoticeFacts): NoticeText {
  switch (facts.kind) {
    case 'child_locked': {
      const secret = facts.secretKind === 'pin' ? 'PIN' : 'password';
      return {
        title: `${facts.childName}'s account is locked`,
        body:
          `${facts.childName}'s account was locked after ${facts.failures} wrong ${secret}s in a row, to keep it safe. ` +
          `To unlock it, set a new ${secret} for ${facts.childName} in the app (Children, then ${facts.childName}). ` +
          `Was it someone else trying? You can also end the account's sessions there.`,
      };
    }
  }
}
