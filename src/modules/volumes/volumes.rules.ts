/** Volume sizes in GiB (reference: maximum 10240; the real service's minimum is 10). */
export const VOLUME_SIZE_MIN = 10;
export const VOLUME_SIZE_MAX = 10240;
export const VOLUME_SIZE_DEFAULT = 20;

/**
 * Volume labels (reference pattern): a letter first, then letters, digits, `-` and `_`, never
 * `--` or `__`. @NOTE the reference's `+` would refuse a one-letter label, which its own
 * minLength 1 (and the spec's 1..32) allow: one letter is accepted.
 */
export const VOLUME_LABEL_PATTERN = '^[a-zA-Z](?:(?!--|__)[a-zA-Z0-9_-])*$';
export const VOLUME_LABEL_MESSAGE =
  'Label must begin with a letter and contain only letters, numbers, dashes and underscores, with no two dashes or underscores in a row';

export const filesystemPath = (label: string): string =>
  `/dev/disk/by-id/scsi-0Compute_Volume_${label}`;

/** Volumes any instance may have without `persist_across_boots` false and 16 GB of RAM. */
export const PERSISTENT_VOLUME_MAX = 8;
/** The most volumes one instance may have, whatever its RAM. */
export const VOLUME_ATTACH_MAX = 64;
/** RAM (GB) an instance needs for more than PERSISTENT_VOLUME_MAX volumes. */
export const MANY_VOLUMES_MIN_RAM_GB = 16;

/** How many volumes an instance with `memoryMb` of RAM may have attached: its GB of RAM, up to 64. */
export function attachLimit(memoryMb: number): number {
  return Math.min(VOLUME_ATTACH_MAX, Math.floor(memoryMb / 1024));
}

/**
 * Why one more volume cannot be attached to an instance that has `attached` volumes already, or
 * undefined when it can (spec §8). The attachment that takes an instance past 8 volumes must not
 * persist across boots, and the instance needs 16 GB of RAM or more.
 */
export function attachLimitProblem(
  memoryMb: number,
  attached: number,
  persist: boolean,
): { field?: string; reason: string } | undefined {
  const limit = attachLimit(memoryMb);
  if (attached + 1 > limit) {
    return { reason: `This compute instance can have at most ${limit} volumes attached.` };
  }
  if (attached + 1 > PERSISTENT_VOLUME_MAX) {
    if (memoryMb < MANY_VOLUMES_MIN_RAM_GB * 1024) {
      return {
        reason: `More than ${PERSISTENT_VOLUME_MAX} volumes need a compute instance with ${MANY_VOLUMES_MIN_RAM_GB} GB of RAM or more.`,
      };
    }
    if (persist) {
      return {
        field: 'persist_across_boots',
        reason: `More than ${PERSISTENT_VOLUME_MAX} volumes can be attached only with persist_across_boots false.`,
      };
    }
  }
  return undefined;
}
