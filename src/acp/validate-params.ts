/**
 * Checks of protocol input the SDK's schemas let through (a `cwd` that is not absolute, an image
 * whose `data` is not base64 or whose `mimeType` is not an image type): the refusal is a `-32602`
 * that names the field, before anything is created or sent upstream.
 *
 * Sources: ACP v1 `session/new`, `session/load`, `session/resume` (`cwd`: "The working directory
 * for this session. Must be an absolute path."), and `ImageContent` (`data`: base64, `mimeType`),
 * https://agentclientprotocol.com/protocol/v1/.
 */
import { existsSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { RequestError, type ContentBlock } from '@agentclientprotocol/sdk/unstable';
import type { Logger } from '../shared/log.js';
import { type OperatorAllowances, refusedMcpServer } from '../tools/index.js';

/**
 * Refuses a `cwd` that is not an absolute path (relative, empty, `~/x`, or containing NUL).
 * A `cwd` that does not exist is accepted (the client may create it, or it may be on another
 * machine) but logged at `warn`, since tools will need it.
 *
 * @throws RequestError `-32602` with data `{ cwd }`
 */
export function checkCwd(cwd: string, logger?: Logger): void {
  if (typeof cwd !== 'string' || cwd.includes('\0') || !isAbsolute(cwd)) {
    throw RequestError.invalidParams(
      { cwd: typeof cwd === 'string' ? cwd.slice(0, 200) : cwd },
      `Invalid params: "cwd" must be an absolute path (got ${JSON.stringify(String(cwd).replace(/\0/g, '\\0').slice(0, 200))})`,
    );
  }
  if (!existsSync(cwd)) logger?.warn('the session directory does not exist; tools that use it will fail', { cwd });
}

/**
 * Refuses a stdio MCP server the operator did not allow (`openai-acp serve --allow-mcp`): the
 * client's command would run on the server's machine. Nothing is checked without allowances (an
 * editor on this machine). Checked before anything is created, so a refused request leaves no
 * session behind.
 *
 * @throws RequestError `-32602` with data `{ mcpServers: index, name, command, flag: '--allow-mcp' }`
 */
export function checkMcpServers(servers: Parameters<typeof refusedMcpServer>[0], allowances: OperatorAllowances | undefined): void {
  if (!allowances) return;
  const refused = refusedMcpServer(servers, allowances);
  if (!refused) return;
  const command = refused.command.slice(0, 200);
  throw RequestError.invalidParams(
    { mcpServers: refused.index, name: refused.name.slice(0, 200), command, flag: '--allow-mcp' },
    `Invalid params: mcpServers[${refused.index}] (${JSON.stringify(refused.name.slice(0, 100))}) runs the command ${JSON.stringify(command)} on this server, which its operator has not allowed; the operator can allow it with openai-acp serve --allow-mcp ${/^[\w./@+-]+$/.test(command) ? command : '<command>'}`,
  );
}

/** Standard base64 (RFC 4648 §4), padding optional only as `=`/`==` at the end; line breaks tolerated (MIME). */
const BASE64 = /^[A-Za-z0-9+/\r\n]*={0,2}[\r\n]*$/;

/**
 * Refuses an image block whose `data` is not base64 or whose `mimeType` is not an `image/…` type:
 * forwarded, it would fail upstream with a less clear message (or be billed and misread).
 *
 * @throws RequestError `-32602` with data `{ block }` (the index in `prompt`) naming the problem
 */
export function checkPromptBlocks(prompt: readonly ContentBlock[]): void {
  prompt.forEach((block, index) => {
    if (block.type !== 'image') return;
    const where = `prompt[${index}] (image)`;
    if (typeof block.mimeType !== 'string' || !/^image\/[\w.+-]+$/i.test(block.mimeType.trim())) {
      throw RequestError.invalidParams(
        { block: index },
        `Invalid params: ${where} has mimeType ${JSON.stringify(String(block.mimeType).slice(0, 100))}, not an image type`,
      );
    }
    const data = block.data;
    // An image given only by an http(s) uri carries no data.
    if (!data && typeof block.uri === 'string' && /^https?:\/\//i.test(block.uri)) return;
    const length = data.includes('\n') || data.includes('\r') ? data.replace(/[\r\n]/g, '').length : data.length;
    if (!data || !BASE64.test(data) || length % 4 !== 0) {
      throw RequestError.invalidParams({ block: index }, `Invalid params: ${where} data is not valid base64`);
    }
  });
}
