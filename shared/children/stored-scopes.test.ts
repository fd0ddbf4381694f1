import { describe, expect, it } from 'vitest';
import { parseStoredScopes } from './stored-scopes';

describe('parseStoredScopes', () => {
  it('keeps the known sections in their stored order', () => {
    expect(parseStoredScopes('["groups","announcements"]')).toEqual(['groups', 'announcements']);
    expect(parseStoredScopes('[]')).toEqual([]);
  });

  it('drops anything that is not a known section, so a stray value never opens more', () => {
    expect(parseStoredScopes('["announcements","admin",7,null,"Media"]')).toEqual(['announcements']);
    expect(parseStoredScopes('{"announcements":true}')).toEqual([]);
  });
});
