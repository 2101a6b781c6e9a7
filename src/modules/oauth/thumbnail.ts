/** Largest thumbnail accepted, in bytes. */
export const THUMBNAIL_MAX_BYTES = 128 * 1024;

/** The image type of a body, recognised by its first bytes (never by the declared type). */
export function imageType(body: Buffer): 'image/png' | 'image/jpeg' | 'image/gif' | undefined {
  if (
    body.length >= 8 &&
    body.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
  )
    return 'image/png';
  if (body.length >= 3 && body[0] === 0xff && body[1] === 0xd8 && body[2] === 0xff)
    return 'image/jpeg';
  const head = body.subarray(0, 6).toString('latin1');
  if (head === 'GIF87a' || head === 'GIF89a') return 'image/gif';
  return undefined;
}
