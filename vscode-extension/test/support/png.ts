// A small PNG decoder for checking screenshots pixel by pixel: 8-bit
// greyscale, RGB and RGBA (with or without alpha), non-interlaced — what
// Chromium writes.

import * as zlib from 'node:zlib';

export interface Image {
  width: number;
  height: number;
  /** RGBA, 4 bytes per pixel. */
  data: Uint8Array;
}

export function decodePng(buf: Buffer): Image {
  if (buf.readUInt32BE(0) !== 0x89504e47) {
    throw new Error('not a PNG');
  }
  let off = 8;
  let width = 0;
  let height = 0;
  let colorType = 0;
  const idat: Buffer[] = [];
  while (off < buf.length) {
    const len = buf.readUInt32BE(off);
    const type = buf.toString('latin1', off + 4, off + 8);
    const data = buf.subarray(off + 8, off + 8 + len);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      const depth = data[8];
      colorType = data[9];
      if (depth !== 8 || data[12] !== 0 || ![0, 2, 6].includes(colorType)) {
        throw new Error(`unsupported PNG: depth ${depth}, colour type ${colorType}, interlace ${data[12]}`);
      }
    } else if (type === 'IDAT') {
      idat.push(data);
    } else if (type === 'IEND') {
      break;
    }
    off += 12 + len;
  }
  const bpp = colorType === 6 ? 4 : colorType === 2 ? 3 : 1;
  const raw = zlib.inflateSync(Buffer.concat(idat));
  const stride = width * bpp;
  const px = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x++) {
      const a = x >= bpp ? px[y * stride + x - bpp] : 0;
      const b = y > 0 ? px[(y - 1) * stride + x] : 0;
      const c = x >= bpp && y > 0 ? px[(y - 1) * stride + x - bpp] : 0;
      let v = line[x];
      switch (filter) {
        case 1:
          v += a;
          break;
        case 2:
          v += b;
          break;
        case 3:
          v += (a + b) >> 1;
          break;
        case 4: {
          const p = a + b - c;
          const pa = Math.abs(p - a);
          const pb = Math.abs(p - b);
          const pc = Math.abs(p - c);
          v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
          break;
        }
      }
      px[y * stride + x] = v & 0xff;
    }
  }
  const out = new Uint8Array(width * height * 4);
  for (let i = 0; i < width * height; i++) {
    if (bpp === 1) {
      out.set([px[i], px[i], px[i], 255], i * 4);
    } else {
      out.set([px[i * bpp], px[i * bpp + 1], px[i * bpp + 2], bpp === 4 ? px[i * bpp + 3] : 255], i * 4);
    }
  }
  return { width, height, data: out };
}

export function pixel(img: Image, x: number, y: number): [number, number, number] {
  const i = (y * img.width + x) * 4;
  return [img.data[i], img.data[i + 1], img.data[i + 2]];
}

/** How many pixels have exactly this colour (±tolerance per channel). */
export function countColor(img: Image, rgb: readonly number[], tolerance = 0): number {
  let n = 0;
  for (let i = 0; i < img.data.length; i += 4) {
    if (
      Math.abs(img.data[i] - rgb[0]) <= tolerance &&
      Math.abs(img.data[i + 1] - rgb[1]) <= tolerance &&
      Math.abs(img.data[i + 2] - rgb[2]) <= tolerance
    ) {
      n++;
    }
  }
  return n;
}
