import fs from 'node:fs/promises';
import path from 'node:path';
import type { ResolvedModel } from '../definitions/registry-types';
import type { StoredUpload } from '../writes/prepare-write';
import { filePath } from '../writes/stored-files';
import { inspectImage } from '../validation/image-header';
import type { SourceApi, SourceObject } from './source-api';

/**
 * An object's images, downloaded from the source and stored under the same name below the media folder
 * (NetBox serves `/media/<name>`), so its representation shows the same path. A file already there with
 * the same bytes (an earlier run) is kept as it is.
 */

const MEDIA = '/media/';

function relativeName(url: string): string | null {
  let p: string;
  try {
    p = decodeURIComponent(new URL(url, 'http://source.invalid').pathname);
  } catch {
    return null;
  }
  const at = p.indexOf(MEDIA);
  return at < 0 ? null : p.slice(at + MEDIA.length);
}

export type ImageFetch = { files: Map<string, StoredUpload> } | { problem: string };

export async function fetchImages(api: SourceApi, mediaRoot: string, model: ResolvedModel, o: SourceObject): Promise<ImageFetch> {
  const files = new Map<string, StoredUpload>();
  for (const f of model.fieldList) {
    if (f.kind !== 'image') continue;
    const url = o[f.name];
    if (typeof url !== 'string' || !url) continue;
    const name = relativeName(url);
    const target = name ? filePath(mediaRoot, name) : null;
    if (!name || !target) return { problem: `${f.name}: ${url} is not a file under the source's /media/ this import can store` };
    let bytes: Buffer;
    try {
      bytes = await api.getBytes(url);
    } catch (e) {
      return { problem: `${f.name}: cannot download ${url}: ${(e as Error).message}` };
    }
    const info = inspectImage(bytes);
    if (!info) return { problem: `${f.name}: ${url} is not a PNG, JPEG, GIF or WebP image` };
    const there = await fs.readFile(target).catch(() => null);
    if (!there || !there.equals(bytes)) {
      await fs.mkdir(path.dirname(target), { recursive: true });
      await fs.writeFile(target, bytes);
    }
    files.set(f.name, { path: name, width: info.width, height: info.height });
  }
  return { files };
}
