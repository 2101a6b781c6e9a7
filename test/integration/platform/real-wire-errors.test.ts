import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { realWire, type WireError } from '../../helpers/real-wire.js';

/**
 * The real wire's recorded refusals (test/fixtures/reference/real-wire.json `errors`: each 4xx
 * the client library's suite met, with its request) replayed on a fresh account: the same status
 * and the same errors (`reason` texts and `field`s, in order). Recordings that a fresh account
 * cannot reproduce are listed by cassette with the reason; docs/fidelity.md ("The real wire")
 * says the same.
 */
const NOT_REPLAYED: Record<string, string> = {};
/** A whole cassette, or one of its refusals (`cassette: METHOD template: first reason`). */
const keyOf = (e: WireError) => `${e.cassette}: ${e.method} ${e.template}: ${e.errors[0]?.reason}`;
const leftOut = (e: WireError) => e.cassette in NOT_REPLAYED || keyOf(e) in NOT_REPLAYED;
const not = (reason: string, cassettes: string[]) => {
  for (const c of cassettes) NOT_REPLAYED[c] = reason;
};
not(
  'needs an instance of the recorded account mid-job ("Compute busy."); compute tests cover busy',
  [
    'TestEventPoller_Secondary',
    'TestInstance_Config_VolumeLimitExtension',
    'TestInstance_Disk_ListMultiple_Secondary',
    'TestInstance_Migrate',
    'TestInstance_MigrateToPG',
    'TestInstance_Resize',
    'TestInstance_TestCreatecomputeWithKernelAndBootSizeThenAddDiskAndRebuild',
  ],
);
not('names instances, addresses, NodeBalancers, VPCs or locks of the recorded account', [
  "TestIPAddress_Instance_Allocate: POST /networking/ips: Region passed in must match Compute's region.",
  'TestIPAddress_Instance_ReserveIP_Assign',
  'TestIPAddress_Update: PUT /networking/ips/{address}: Domain is not valid.',
  'TestInstance_AddReservedIPToInstanceVariants: POST /compute/instances/{computeId}/ips: Cannot reserve a private address.',
  'TestInstance_AddReservedIPToInstanceVariants: POST /compute/instances/{computeId}/ips: Address must be reserved and must be currently unassigned.',
  'TestInstance_AddReservedIPToInstanceVariants: POST /compute/instances/{computeId}/ips: Address must belong to same region as compute.',
  'TestInstance_AddReservedIPToInstanceVariants: POST /compute/instances/{computeId}/ips: Only addresses of type ipv4 are currently supported.',
  'TestInstance_AddReservedIPToInstanceVariants: POST /compute/instances/{computeId}/ips: Must provide a valid reserved address',
  'TestInstance_CreateWithAlreadyAssignedReservedIP',
  'TestInstance_CreateWithEmptyIPAddress',
  'TestInstance_CreateWithMultipleIPAddresses',
  'TestInstance_CreateWithNonOwnedReservedAddress',
  'TestInstance_CreateWithNonReservedAddress',
  'TestInstance_CreateWithReservedIPAddressVariants',
  'TestInstance_MaintenancePolicy: PUT /compute/instances/{computeId}: Unsupported maintenance policy slug format.',
  'TestNodeBalancerStats_Get',
  'TestTryToLockTwoResourcesWithTheSameType',
  'TestVPC_Subnet_Create_Invalid_data',
  'TestVPC_Subnet_Update_Invalid_Label',
  'TestVPC_Update_Invalid',
]);
not('names regions of the real catalogue that Stratus does not have', [
  'TestInstance_TestExpectedErrorIfFieldsAuthorizedUsersAuthorizedKeysRootPassAreNotSet',
  'TestVPC_Create_Invalid',
  'TestVPC_WithRDMATypeAndIPv6_Fail',
]);
not('needs the recorded account to be at its reserved-address limit and rate-limited', [
  'TestReservedIPAddresses_ExceedLimit',
]);
not('an area Stratus does not serve (Kubernetes, monitoring)', [
  'TestLKECluster_APIEndpoints_List',
  'TestLKECluster_GetMissing',
  'TestLKECluster_Kubeconfig_Delete',
  'TestLKECluster_Kubeconfig_Get',
  'TestLKECluster_WaitForReady',
  'TestLKENodePool_GetFound',
  'TestLKENodePool_GetMissing',
  'TestLKEVersion_GetMissing',
  'TestLogStream_Create_EmptyDestinations',
  'TestLogStream_Create_InvalidDestination',
  'TestLogStream_Create_TwoDestinations',
  'TestLogStream_Delete',
  'TestLogStream_Get',
  'TestLogStream_List',
  'TestLogStream_Update_Destinations',
  'TestLogStream_Update_LabelAndStatus',
  'TestLogsDestination_Create_InvalidSecret',
  'TestLogsDestination_Create_InvalidType',
  'TestLogsDestination_Delete',
  'TestMonitorAlertDefinition_CreateWithIdempotency',
  'TestMonitorInvalidDashboard_Get',
  'TestMonitorNotAllowedServiceType_Get',
  'TestServiceTokenInvalidEntity_POST',
]);

/** The recorded 401s were made with a token the service did not know. */
const tokenOf = (e: WireError) => (e.status === 401 ? 'not-a-token-of-this-server' : undefined);

const pairs = (errors: { field?: string; reason: string }[] | undefined) =>
  (errors ?? []).map((x) => ({ field: x.field ?? null, reason: x.reason }));

describe('real wire: recorded refusals replayed', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const replayed = realWire.errors.filter((e) => !leftOut(e));

  it.each(
    replayed.map(
      (e, i) => [`${e.cassette} #${i}: ${e.method} ${e.path} → ${e.status}`, e] as const,
    ),
  )('%s', async (_name, e) => {
    const token = tokenOf(e);
    const r = await t.request(e.method, `/v4${e.path}${e.query ? `?${e.query}` : ''}`, {
      ...(e.body !== undefined ? { body: e.body } : {}),
      ...(e.filter !== undefined ? { filter: e.filter } : {}),
      ...(token !== undefined ? { token } : {}),
    });
    expect(r.status).toBe(e.status);
    expect(pairs((r.body as { errors?: { field?: string; reason: string }[] }).errors)).toEqual(
      pairs(e.errors),
    );
  });

  it('real wire refusals: every refusal left out is still in the recording', () => {
    const recorded = new Set(realWire.errors.flatMap((e) => [e.cassette, keyOf(e)]));
    expect(Object.keys(NOT_REPLAYED).filter((c) => !recorded.has(c))).toEqual([]);
    expect(replayed.length).toBeGreaterThanOrEqual(37);
  });
});
