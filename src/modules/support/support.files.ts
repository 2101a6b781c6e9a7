import path from 'node:path';

/**
 * What a ticket attachment may be: the reference's accepted file extensions, each with the
 * content types a client may send for it (or none, or `application/octet-stream`), and the
 * largest file taken.
 */
export const ATTACHMENT_TYPES: Readonly<Record<string, readonly string[]>> = {
  gif: ['image/gif'],
  jpg: ['image/jpeg', 'image/pjpeg'],
  jpeg: ['image/jpeg', 'image/pjpeg'],
  pjpg: ['image/jpeg', 'image/pjpeg'],
  pjpeg: ['image/jpeg', 'image/pjpeg'],
  tif: ['image/tiff'],
  tiff: ['image/tiff'],
  png: ['image/png'],
  pdf: ['application/pdf'],
  txt: ['text/plain'],
};

/** @NOTE the reference names no size; 5 MiB is Stratus's limit (docs/fidelity.md). */
export const ATTACHMENT_MAX_BYTES = 5 * 1024 * 1024;

const GENERIC = new Set(['', 'application/octet-stream', 'binary/octet-stream']);

/** The stored name and content type of an upload, or why it is refused. */
export function checkAttachment(
  filename: string | undefined,
  mimetype: string | undefined,
): { name: string; contentType: string } | { problem: string } {
  // Browsers and some clients send a path; only its last part is the file's name.
  const name = path.basename((filename ?? '').replaceAll('\\', '/')).trim();
  if (name === '' || name === '.' || name === '..') return { problem: 'A file name is required.' };
  if (name.length > 255) return { problem: 'The file name must be at most 255 characters.' };
  const ext = path.extname(name).slice(1).toLowerCase();
  const types = Object.hasOwn(ATTACHMENT_TYPES, ext) ? ATTACHMENT_TYPES[ext] : undefined;
  if (!types) {
    return {
      problem: `Files of this type are not accepted; use one of: ${Object.keys(ATTACHMENT_TYPES)
        .map((e) => `.${e}`)
        .join(', ')}.`,
    };
  }
  const given = (mimetype ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (!GENERIC.has(given) && !types.includes(given)) {
    return { problem: `The content type ${given} does not match a .${ext} file.` };
  }
  return { name, contentType: types[0] as string };
}
