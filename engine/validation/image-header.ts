/**
 * What an uploaded file is, told from its bytes rather than from its name or the Content-Type the client
 * gave: PNG, JPEG, GIF or WebP, with the pixel size its header declares. Anything else (an SVG, which a
 * browser would run scripts in, an HTML page named photo.png, a truncated header) is not an image here.
 * Only headers are read: no decoder, no native dependency.
 */
export interface ImageInfo {
  format: 'png' | 'jpeg' | 'gif' | 'webp';
  /** The file extension stored files get, whatever the upload was called. */
  extension: 'png' | 'jpg' | 'gif' | 'webp';
  /** The Content-Type the file is served with. */
  mime: string;
  width: number;
  height: number;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function png(b: Buffer): ImageInfo | null {
  // The signature, then the IHDR chunk first: length 13, type, width and height (big-endian).
  if (b.length < 24 || !b.subarray(0, 8).equals(PNG_SIGNATURE)) return null;
  if (b.readUInt32BE(8) !== 13 || b.toString('latin1', 12, 16) !== 'IHDR') return null;
  return sized({ format: 'png', extension: 'png', mime: 'image/png' }, b.readUInt32BE(16), b.readUInt32BE(20));
}

function gif(b: Buffer): ImageInfo | null {
  const magic = b.toString('latin1', 0, 6);
  if (b.length < 10 || (magic !== 'GIF87a' && magic !== 'GIF89a')) return null;
  return sized({ format: 'gif', extension: 'gif', mime: 'image/gif' }, b.readUInt16LE(6), b.readUInt16LE(8));
}

/** Start-of-frame markers (baseline, progressive, lossless...); not DHT (C4), JPG (C8) or DAC (CC). */
const SOF = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);

function jpeg(b: Buffer): ImageInfo | null {
  if (b.length < 4 || b[0] !== 0xff || b[1] !== 0xd8) return null;
  // Walk the marker segments to the first start-of-frame, which holds the size.
  let i = 2;
  while (i + 4 <= b.length) {
    if (b[i] !== 0xff) return null;
    const marker = b[i + 1]!;
    if (marker === 0xff) {
      i++; // fill byte
      continue;
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      i += 2; // markers without a length
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return null; // end of image, or scan data, before any frame
    const length = b.readUInt16BE(i + 2);
    if (length < 2) return null;
    if (SOF.has(marker)) {
      if (i + 9 > b.length) return null;
      return sized({ format: 'jpeg', extension: 'jpg', mime: 'image/jpeg' }, b.readUInt16BE(i + 7), b.readUInt16BE(i + 5));
    }
    i += 2 + length;
  }
  return null;
}

function webp(b: Buffer): ImageInfo | null {
  if (b.length < 30 || b.toString('latin1', 0, 4) !== 'RIFF' || b.toString('latin1', 8, 12) !== 'WEBP') return null;
  const chunk = b.toString('latin1', 12, 16);
  const kind = { format: 'webp', extension: 'webp', mime: 'image/webp' } as const;
  if (chunk === 'VP8 ') {
    // A lossy key frame: its start code, then 14-bit width and height.
    if (b[23] !== 0x9d || b[24] !== 0x01 || b[25] !== 0x2a) return null;
    return sized(kind, b.readUInt16LE(26) & 0x3fff, b.readUInt16LE(28) & 0x3fff);
  }
  if (chunk === 'VP8L') {
    // Lossless: a signature byte, then width-1 and height-1 in 14 bits each.
    if (b[20] !== 0x2f) return null;
    const bits = b.readUInt32LE(21);
    return sized(kind, (bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1);
  }
  if (chunk === 'VP8X') {
    // Extended: canvas width-1 and height-1 in 24 bits each.
    return sized(kind, b.readUIntLE(24, 3) + 1, b.readUIntLE(27, 3) + 1);
  }
  return null;
}

function sized(kind: Pick<ImageInfo, 'format' | 'extension' | 'mime'>, width: number, height: number): ImageInfo | null {
  return width > 0 && height > 0 ? { ...kind, width, height } : null;
}

/** The image the bytes hold, or null when they are not one of the formats taken. */
export function inspectImage(bytes: Buffer): ImageInfo | null {
  return png(bytes) ?? jpeg(bytes) ?? gif(bytes) ?? webp(bytes);
}

/** The Content-Type of a stored file, by the extension Patchbay gave it. */
export function mimeOfExtension(name: string): string | null {
  const ext = name.slice(name.lastIndexOf('.') + 1).toLowerCase();
  return { png: 'image/png', jpg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp' }[ext] ?? null;
}
