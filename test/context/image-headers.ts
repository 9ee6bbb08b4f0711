/**
 * Image headers for the context-window tests, built byte by byte from each format's specification
 * (PNG IHDR, GIF logical screen descriptor, WebP VP8/VP8L/VP8X, JPEG SOFn), as `data:` URLs.
 * Only the header is real; the rest is filler, which is all the size reader looks at.
 */

const u16be = (n: number) => [(n >> 8) & 0xff, n & 0xff];
const u16le = (n: number) => [n & 0xff, (n >> 8) & 0xff];
const u24le = (n: number) => [n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff];
const u32be = (n: number) => [(n >>> 24) & 0xff, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];
const bytes = (s: string) => [...s].map((c) => c.charCodeAt(0));

/** A base64 `data:` URL of `mime` holding `data`. */
export const dataUrl = (mime: string, data: number[] | Uint8Array) => `data:${mime};base64,${Buffer.from(data).toString('base64')}`;

/** Signature and IHDR of a `width` × `height` PNG. */
export function png(width: number, height: number): number[] {
  return [
    0x89,
    ...bytes('PNG\r\n\x1a\n'),
    ...u32be(13),
    ...bytes('IHDR'),
    ...u32be(width),
    ...u32be(height),
    8,
    6,
    0,
    0,
    0,
    ...u32be(0),
    ...new Array(16).fill(0),
  ];
}

/** Header of a `width` × `height` GIF89a. */
export function gif(width: number, height: number): number[] {
  return [...bytes('GIF89a'), ...u16le(width), ...u16le(height), 0xf7, 0, 0, ...new Array(20).fill(0)];
}

/** RIFF/WEBP header with a lossy (`VP8 `), lossless (`VP8L`) or extended (`VP8X`) first chunk. */
export function webp(kind: 'VP8 ' | 'VP8L' | 'VP8X', width: number, height: number): number[] {
  const riff = [...bytes('RIFF'), 0, 0, 0, 0, ...bytes('WEBP'), ...bytes(kind), 10, 0, 0, 0];
  if (kind === 'VP8 ') return [...riff, 0x9d, 0x01, 0x2a, 0x9d, 0x01, 0x2a, ...u16le(width & 0x3fff), ...u16le(height & 0x3fff), ...new Array(8).fill(0)];
  if (kind === 'VP8L') {
    const w = width - 1;
    const h = height - 1;
    const bits = [w & 0xff, ((w >> 8) & 0x3f) | ((h & 0x03) << 6), (h >> 2) & 0xff, (h >> 10) & 0x0f];
    return [...riff, 0x2f, ...bits, ...new Array(8).fill(0)];
  }
  return [...riff, 0x10, 0, 0, 0, ...u24le(width - 1), ...u24le(height - 1), ...new Array(8).fill(0)];
}

/**
 * A JPEG: SOI, JFIF APP0, one APPn segment (EXIF- or ICC-like) per entry of `appBytes` (each
 * < 65,530 bytes: a segment length is 16 bits), a fill byte, DQT, then a start-of-frame (`sof`,
 * 0xc0 baseline or 0xc2 progressive) of `width` × `height`.
 */
export function jpeg(width: number, height: number, appBytes: number[] = [], sof = 0xc0): number[] {
  const segment = (marker: number, payload: number[]) => [0xff, marker, ...u16be(payload.length + 2), ...payload];
  return [
    0xff,
    0xd8,
    ...segment(0xe0, [...bytes('JFIF\0'), 1, 1, 0, 0, 1, 0, 1, 0, 0]),
    ...appBytes.flatMap((size, i) => segment(0xe1 + i, [...bytes('Exif\0\0'), ...new Array(size).fill(0x41)])),
    0xff, // a fill byte before the next marker is legal
    ...segment(0xdb, new Array(65).fill(1)),
    ...segment(sof, [8, ...u16be(height), ...u16be(width), 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]),
    0xff,
    0xd9,
  ];
}
