/**
 * Reading an image's width and height (pixels) from the header of its base64 text, for the
 * image-token estimate of `token-estimate.ts`. Formats and where their sizes sit:
 * - PNG: the IHDR chunk, big-endian 32-bit width and height (https://www.w3.org/TR/png/#11IHDR);
 * - GIF: the logical screen descriptor, little-endian 16-bit
 *   (https://www.w3.org/Graphics/GIF/spec-gif89a.txt);
 * - WebP: the `VP8 `, `VP8L` or `VP8X` chunk
 *   (https://developers.google.com/speed/webp/docs/riff_container);
 * - JPEG: the first start-of-frame segment (ITU-T T.81, annex B).
 * Pure; decodes only the bytes it reads.
 */

/** `count` bytes from byte `start` of base64 text, decoding only the characters that hold them. */
function base64Bytes(b64: string, start: number, count: number): Uint8Array {
  const from = Math.floor(start / 3) * 4;
  const to = Math.ceil((start + count) / 3) * 4;
  const bytes = Buffer.from(b64.slice(from, to), 'base64');
  return bytes.subarray(start - (from / 4) * 3, start - (from / 4) * 3 + count);
}

/**
 * Width and height in pixels of a base64 PNG, GIF, WebP or JPEG image, read from its header;
 * `undefined` for other formats or a malformed header. Decodes only the bytes it reads.
 */
export function imageDimensions(base64: string): { width: number; height: number } | undefined {
  const at = (start: number, count: number) => base64Bytes(base64, start, count);
  const head = at(0, 30);
  const be16 = (b: Uint8Array, i: number) => (b[i]! << 8) | b[i + 1]!;
  const le16 = (b: Uint8Array, i: number) => b[i]! | (b[i + 1]! << 8);
  const le24 = (b: Uint8Array, i: number) => b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16);
  const ascii = (from: number, to: number) => String.fromCharCode(...head.subarray(from, to));
  let size: { width: number; height: number } | undefined;
  if (head.length >= 24 && ascii(1, 4) === 'PNG' && ascii(12, 16) === 'IHDR') {
    size = { width: be16(head, 18) + head[17]! * 65536, height: be16(head, 22) + head[21]! * 65536 };
  } else if (head.length >= 10 && ascii(0, 4) === 'GIF8') {
    size = { width: le16(head, 6), height: le16(head, 8) };
  } else if (head.length >= 30 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') {
    const chunk = ascii(12, 16);
    if (chunk === 'VP8 ') size = { width: le16(head, 26) & 0x3fff, height: le16(head, 28) & 0x3fff };
    else if (chunk === 'VP8L') {
      const [b0, b1, b2, b3] = [head[21]!, head[22]!, head[23]!, head[24]!];
      size = { width: 1 + (((b1 & 0x3f) << 8) | b0), height: 1 + (((b3 & 0x0f) << 10) | (b2 << 2) | (b1 >> 6)) };
    } else if (chunk === 'VP8X') size = { width: 1 + le24(head, 24), height: 1 + le24(head, 27) };
  } else if (head.length >= 4 && head[0] === 0xff && head[1] === 0xd8) {
    // Walk the segments to the first start-of-frame marker (SOF0-SOF15 except DHT, JPG, DAC).
    for (let offset = 2, steps = 0; steps < 256; steps++) {
      const segment = at(offset, 9);
      if (segment.length < 4 || segment[0] !== 0xff) break;
      const marker = segment[1]!;
      if (marker === 0xff) {
        offset++; // fill byte
        continue;
      }
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        if (segment.length >= 9) size = { width: be16(segment, 7), height: be16(segment, 5) };
        break;
      }
      offset += 2 + be16(segment, 2);
    }
  }
  return size && size.width > 0 && size.height > 0 ? size : undefined;
}
