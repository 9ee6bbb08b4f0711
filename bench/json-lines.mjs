/**
 * Calls `onMessage` with each JSON value a child process writes as one line to `stream` (its
 * stdout); a line that is not JSON goes to `onBadLine` (default: thrown).
 */
export function onJsonLines(
  stream,
  onMessage,
  onBadLine = (line) => {
    throw new Error(`not a JSON line: ${line.slice(0, 200)}`);
  },
) {
  let buffer = '';
  stream.setEncoding('utf8');
  stream.on('data', (data) => {
    buffer += data;
    for (let i; (i = buffer.indexOf('\n')) >= 0; ) {
      const line = buffer.slice(0, i);
      buffer = buffer.slice(i + 1);
      let message;
      try {
        message = JSON.parse(line);
      } catch {
        onBadLine(line);
        continue;
      }
      onMessage(message);
    }
  });
}
