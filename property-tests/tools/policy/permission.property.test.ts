import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SESSION_MODES } from '../../../src/tools/policy/mode-table.js';
import { decidePermission } from '../../../src/tools/policy/permission.js';
import type { PermissionSubject } from '../../../src/tools/tool.js';

const key = fc.oneof(fc.constantFrom('write_file', 'edit_file', 'run_command:git', 'mcp:fs/write'), fc.string());
const remembered = fc.dictionary(key, fc.constantFrom('allow' as const, 'reject' as const));
const subject = (permission: fc.Arbitrary<PermissionSubject['permission']>) =>
  fc.record(
    { permission, key, insideCwd: fc.option(fc.boolean(), { nil: undefined }), readOnlyHint: fc.option(fc.boolean(), { nil: undefined }) },
    { requiredKeys: ['permission', 'key'] },
  );
const mutating = subject(fc.constantFrom('edits' as const, 'runs' as const));

describe('decidePermission properties', () => {
  it('read-only rejects every mutating call but MCP tools marked read-only, whatever is remembered', () => {
    fc.assert(fc.property(remembered, mutating, (choices, s) => decidePermission('read-only', choices, s) === 'reject' || s.readOnlyHint === true));
  });
  it('in read-only, an MCP tool marked read-only is decided as in ask mode', () => {
    fc.assert(
      fc.property(
        remembered,
        mutating,
        (choices, s) => s.readOnlyHint !== true || decidePermission('read-only', choices, s) === decidePermission('ask', choices, s),
      ),
    );
  });
  it('full-access allows every call, whatever is remembered', () => {
    fc.assert(
      fc.property(
        remembered,
        subject(fc.constantFrom('edits' as const, 'runs' as const, 'reads' as const)),
        (choices, s) => decidePermission('full-access', choices, s) === 'allow',
      ),
    );
  });
  it('reads are always allowed', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...SESSION_MODES),
        remembered,
        subject(fc.constant('reads' as const)),
        (mode, choices, s) => decidePermission(mode, choices, s) === 'allow',
      ),
    );
  });
  it('in ask and accept-edits a remembered choice for the key decides', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('ask' as const, 'accept-edits' as const),
        remembered,
        mutating,
        fc.constantFrom('allow' as const, 'reject' as const),
        (mode, choices, s, choice) => {
          expect(decidePermission(mode, { ...choices, [s.key]: choice }, s)).toBe(choice);
        },
      ),
    );
  });
});
