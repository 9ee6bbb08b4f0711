/**
 * Checks messages an agent writes against the ACP SDK's stable JSON Schema
 * (`@agentclientprotocol/sdk/schema/v1/schema.json`, JSON Schema 2020-12) with Ajv: requests and
 * notifications by their method (the schema's `x-method`), answers by the method of the request
 * they answer. A method the stable schema does not define (legacy `session/set_model`, unstable
 * ones) is reported as such, not passed silently.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, sep } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

const require = createRequire(import.meta.url);
/** The package's root: its entry point lives under `dist/`, and `package.json` is not exported. */
const entry = require.resolve('@agentclientprotocol/sdk');
const SCHEMA_PATH = join(entry.slice(0, entry.lastIndexOf(`${sep}dist${sep}`)), 'schema', 'v1', 'schema.json');

type Def = { 'x-method'?: string; 'x-side'?: string };

/** A checker of agent messages. */
export interface AcpSchema {
  /**
   * The problems of one message the agent wrote (`[]`: valid). `answered` gives the method of the
   * client request an answer belongs to.
   */
  check(message: any, answered: (id: unknown) => string | undefined): string[];
}

/** Loads and compiles the schema once. */
export function loadAcpSchema(): AcpSchema {
  const schema = JSON.parse(readFileSync(SCHEMA_PATH, 'utf8')) as { $defs: Record<string, Def> };
  // Unoptimized code compiles the schema's large unions in about half the CPU time (~0.5 s against
  // ~1 s for what a file checks); a file checks tens of messages, so the slower checks cost little.
  const ajv = new Ajv2020({ strict: false, allErrors: true, code: { optimize: false } });
  for (const format of ['uint64', 'int64', 'uint32', 'int32', 'uint16', 'double', 'float']) ajv.addFormat(format, true);
  ajv.addFormat('uri', (value: string) => URL.canParse(value));
  ajv.addSchema(schema, 'acp');
  const validators = new Map<string, ValidateFunction>();
  const validator = (name: string) => {
    let v = validators.get(name);
    if (!v) validators.set(name, (v = ajv.getSchema(`acp#/$defs/${name}`)!));
    return v;
  };
  // What the agent sends: requests and notifications the client handles; answers to the agent's methods.
  const outgoing = new Map<string, string>();
  const answers = new Map<string, string>();
  for (const [name, def] of Object.entries(schema.$defs)) {
    const method = def['x-method'];
    if (!method) continue;
    if ((def['x-side'] === 'client' || def['x-side'] === 'protocol') && /(Request|Notification)$/.test(name)) outgoing.set(method, name);
    if (def['x-side'] === 'agent' && name.endsWith('Response')) answers.set(method, name);
  }
  const problems = (name: string, value: unknown) => {
    const v = validator(name);
    return v(value) ? [] : [`${name}: ${ajv.errorsText(v.errors, { separator: '; ' })}`];
  };
  return {
    check(message, answered) {
      if (message?.jsonrpc !== '2.0') return ['not JSON-RPC 2.0'];
      if (typeof message.method === 'string') {
        const name = outgoing.get(message.method);
        return name ? problems(name, message.params) : [`${message.method}: not a method the stable schema lets an agent send`];
      }
      if ('error' in message) return typeof message.error?.code === 'number' && typeof message.error?.message === 'string' ? [] : ['a malformed error'];
      const method = answered(message.id);
      if (!method) return [`an answer to an unknown request ${JSON.stringify(message.id)}`];
      const name = answers.get(method);
      return name ? problems(name, message.result) : [`${method}: no answer in the stable schema`];
    },
  };
}
