/** A beta program as `GET /betas` shows it. */
export interface BetaProgram {
  id: string;
  label: string;
  description: string | null;
  started: string;
  /** null while the program runs. */
  ended: string | null;
  greenlight_only: boolean;
  more_info: string | null;
}

/**
 * The beta programs Stratus ships: an open one, one for Greenlight participants only, and one
 * that has ended (shown by id, never listed as active, not open to enrolment).
 */
export const BETA_PROGRAMS: readonly BetaProgram[] = [
  {
    id: 'gpu_ada_beta',
    label: 'GPU Ada Series Beta',
    description:
      'Early access to GPU instances for media transcoding and AI inference. Participants are told by support ticket when capacity is available to them.',
    started: '2024-05-01T00:00:00',
    ended: null,
    greenlight_only: false,
    more_info: 'https://www.compute.example/betas/gpu',
  },
  {
    id: 'vpc_ipv6_beta',
    label: 'VPC IPv6 Beta',
    description: 'Dual-stack VPC subnets with IPv6 ranges for Greenlight participants.',
    started: '2025-02-10T00:00:00',
    ended: null,
    greenlight_only: true,
    more_info: 'https://www.compute.example/green-light/',
  },
  {
    id: 'metadata_beta',
    label: 'Metadata Service Beta',
    description: 'The instance metadata service, before its general availability.',
    started: '2023-07-11T00:00:00',
    ended: '2024-03-01T00:00:00',
    greenlight_only: false,
    more_info: null,
  },
];
