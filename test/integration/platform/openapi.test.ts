import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../../helpers/build-test-app.js';
import { operationPaths, wireBacked } from '../../helpers/real-wire.js';
import {
  type AllowedDifference,
  auditDifferences,
  compareOpenApi,
  type Difference,
  differenceText,
  type OpenApiDoc,
} from '../../helpers/openapi-compare.js';

/**
 * Every deliberate difference between the generated document and the reference. Each one is also
 * listed, with the same text, in docs/fidelity.md. A difference not listed here fails its
 * operation's test; an entry that no longer occurs fails the allow-list test.
 */
const SHAREGROUPS =
  'image share groups of later API revisions (shapes from the recorded traffic and the SDKs)';

const ALLOWED: AllowedDifference[] = [
  {
    ops: [
      'getRegions',
      'getRegionsAvailability',
      'getComputeTypes',
      'getPersonalAccessTokens',
      'getComputeNodeBalancers',
      'getIPs',
      'getNodeBalancerFirewalls',
      'getAccountLogins',
      'getProfileLogins',
      'getDevices',
      'getAvailability',
      'getMaintenance',
      'getNotifications',
      'getManagedServices',
    ],
    details: ['query page: only in Stratus', 'query page_size: only in Stratus'],
    reason:
      'every collection is paged the same way; the reference returns the envelope here but declares no page parameters',
  },
  {
    ops: ['getImages', 'getImage'],
    details: ['security: public in Stratus, oauth [images:read_only] in reference'],
    reason:
      'public images are served without a token (as the reference text says); a token with images:read_only adds private images',
  },
  {
    ops: ['createComputeInstance'],
    details: ['request (body): field maintenance_policy only in Stratus'],
    reason:
      'the real service takes an instance maintenance policy (compute/migrate, compute/power_off_on; the wire records its refusals)',
  },
  {
    ops: ['getMaintenancePolicies'],
    details: ['GET /maintenance/policies: not in reference'],
    reason: 'the maintenance policies of later API revisions (shape from the recorded traffic)',
  },
  {
    ops: ['updateAccountSettings'],
    details: ['request AccountSettings: field maintenance_policy only in Stratus'],
    reason: 'the account default maintenance policy is writable (the wire records the PUT)',
  },
  {
    ops: ['getMaintenance'],
    details: ['response Maintenance: field maintenance_policy_set only in Stratus'],
    reason:
      'the policy the instance follows, as the newer wire carries it (the Python SDK reads it)',
  },
  {
    ops: ['getSharegroups'],
    details: ['GET /images/sharegroups: not in reference'],
    reason: SHAREGROUPS,
  },
  {
    ops: ['postSharegroup'],
    details: ['POST /images/sharegroups: not in reference'],
    reason: SHAREGROUPS,
  },
  {
    ops: ['getSharegroup'],
    details: ['GET /images/sharegroups/{sharegroupId}: not in reference'],
    reason: SHAREGROUPS,
  },
  {
    ops: ['putSharegroup'],
    details: ['PUT /images/sharegroups/{sharegroupId}: not in reference'],
    reason: SHAREGROUPS,
  },
  {
    ops: ['deleteSharegroup'],
    details: ['DELETE /images/sharegroups/{sharegroupId}: not in reference'],
    reason: SHAREGROUPS,
  },
  {
    ops: ['getSharegroupImages'],
    details: ['GET /images/sharegroups/{sharegroupId}/images: not in reference'],
    reason: SHAREGROUPS,
  },
  {
    ops: ['postSharegroupImages'],
    details: ['POST /images/sharegroups/{sharegroupId}/images: not in reference'],
    reason: SHAREGROUPS,
  },
  {
    ops: ['putSharegroupImage'],
    details: ['PUT /images/sharegroups/{sharegroupId}/images/{imageId}: not in reference'],
    reason: SHAREGROUPS,
  },
  {
    ops: ['deleteSharegroupImage'],
    details: ['DELETE /images/sharegroups/{sharegroupId}/images/{imageId}: not in reference'],
    reason: SHAREGROUPS,
  },
  {
    ops: ['getSharegroupMembers'],
    details: ['GET /images/sharegroups/{sharegroupId}/members: not in reference'],
    reason: SHAREGROUPS,
  },
  {
    ops: ['postSharegroupMember'],
    details: ['POST /images/sharegroups/{sharegroupId}/members: not in reference'],
    reason: SHAREGROUPS,
  },
  {
    ops: ['getSharegroupMember'],
    details: ['GET /images/sharegroups/{sharegroupId}/members/{tokenUuid}: not in reference'],
    reason: SHAREGROUPS,
  },
  {
    ops: ['putSharegroupMember'],
    details: ['PUT /images/sharegroups/{sharegroupId}/members/{tokenUuid}: not in reference'],
    reason: SHAREGROUPS,
  },
  {
    ops: ['deleteSharegroupMember'],
    details: ['DELETE /images/sharegroups/{sharegroupId}/members/{tokenUuid}: not in reference'],
    reason: SHAREGROUPS,
  },
  {
    ops: ['getImageSharegroups'],
    details: ['GET /images/{imageId}/sharegroups: not in reference'],
    reason: SHAREGROUPS,
  },
  {
    ops: ['getSharegroupTokens'],
    details: ['GET /images/sharegroups/tokens: not in reference'],
    reason: SHAREGROUPS,
  },
  {
    ops: ['postSharegroupTokens'],
    details: ['POST /images/sharegroups/tokens: not in reference'],
    reason: SHAREGROUPS,
  },
  {
    ops: ['getSharegroupToken'],
    details: ['GET /images/sharegroups/tokens/{tokenUuid}: not in reference'],
    reason: SHAREGROUPS,
  },
  {
    ops: ['putSharegroupToken'],
    details: ['PUT /images/sharegroups/tokens/{tokenUuid}: not in reference'],
    reason: SHAREGROUPS,
  },
  {
    ops: ['deleteSharegroupToken'],
    details: ['DELETE /images/sharegroups/tokens/{tokenUuid}: not in reference'],
    reason: SHAREGROUPS,
  },
  {
    ops: ['getSharegroupByToken'],
    details: ['GET /images/sharegroups/tokens/{tokenUuid}/sharegroup: not in reference'],
    reason: SHAREGROUPS,
  },
  {
    ops: ['getSharegroupImagesByToken'],
    details: ['GET /images/sharegroups/tokens/{tokenUuid}/sharegroup/images: not in reference'],
    reason: SHAREGROUPS,
  },
  {
    ops: ['postApplyFirewalls'],
    details: ['POST /compute/instances/{computeId}/firewalls/apply: not in reference'],
    reason:
      "the reapply of an instance's firewalls of later API revisions (the Python SDK's apply_firewalls)",
  },
  {
    ops: ['getMaintenance'],
    details: [
      'response Maintenance: field complete_time only in Stratus',
      'response Maintenance: field description only in Stratus',
      'response Maintenance: field not_before only in Stratus',
      'response Maintenance: field source only in Stratus',
      'response Maintenance: field start_time only in Stratus',
    ],
    reason:
      'the maintenance flow of the newer wire (the Go and Python SDKs and the web manager read these fields)',
  },
  {
    ops: ['updateComputeInstance'],
    details: ['request Compute: field maintenance_policy only in Stratus'],
    reason:
      'the real service takes an instance maintenance policy (compute/migrate, compute/power_off_on; the wire records its refusals)',
  },
  {
    ops: ['getTaggedObjects'],
    details: [
      'response data[].data: field client_udp_sess_throttle only in Stratus',
      'response data[].data: field encryption only in Stratus',
      'response data[].data: field frontend_address_type only in Stratus',
      'response data[].data: field frontend_vpc_subnet_id only in Stratus',
      'response data[].data: field io_ready only in Stratus',
      'response data[].data: field lke_cluster only in Stratus',
    ],
    reason:
      'tagged volumes and NodeBalancers are shown as their own endpoints show them, with the fields the wire records there',
  },
  {
    ops: ['getIPv6Range'],
    details: ['security: oauth [ips:read_only] in Stratus, oauth [ips:read] in reference'],
    reason: 'ips:read is a typo of the reference; the real service announces ips:read_only',
  },
  {
    ops: ['getNodeBalancerNode'],
    details: [
      'security: oauth [nodebalancers:read_only] in Stratus, oauth [nodebalancers:read_write] in reference',
    ],
    reason: 'a GET needs read access only; the real service announces nodebalancers:read_only',
  },
  {
    ops: ['getEvents', 'getEvent'],
    details: ['response Event.duration: nullable in Stratus only'],
    reason: 'null until the event finishes or fails',
  },
  {
    ops: ['getEvents', 'getEvent'],
    details: [
      'response Event.entity: nullable in Stratus only',
      'response Event.entity.id: nullable in Stratus only',
      'response Event.entity.label: nullable in Stratus only',
      'response Event.entity.url: nullable in Stratus only',
    ],
    reason:
      'an event about no entity has entity null; account events have no entity id; a reference without label or url gives null',
  },
  {
    ops: ['getEvents', 'getEvent'],
    details: [
      'response Event.secondary_entity: nullable in Stratus only',
      'response Event.secondary_entity.id: nullable in Stratus only',
      'response Event.secondary_entity.label: nullable in Stratus only',
      'response Event.secondary_entity.url: nullable in Stratus only',
    ],
    reason: 'most events have no secondary entity (null); when present it has the shape of entity',
  },
  {
    ops: ['getEvents', 'getEvent'],
    details: [
      'response Event.secondary_entity.id: type integer|object|string in Stratus, string in reference',
    ],
    reason:
      'the spec (which wins) gives secondary_entity the same shape as entity, integer id; a public image has its string id (the wire)',
  },
  {
    ops: ['getEvents', 'getEvent'],
    details: [
      'response Event.time_remaining: type integer|object|string in Stratus, string in reference',
      'response Event.message: nullable in reference only',
    ],
    reason: 'the wire: whole seconds as an integer; no message is an empty string',
  },
  {
    ops: ['addComputeConfig', 'getComputeConfig', 'getComputeConfigs', 'updateComputeConfig'],
    details: ['response ComputeConfig.comments: nullable in reference only'],
    reason: 'the wire: no comments is an empty string',
  },
  {
    ops: ['addStackScript', 'getStackScript', 'getStackScripts', 'updateStackScript'],
    details: ['response UserDefinedField: field manyof only in Stratus'],
    reason:
      "the wire's lowercase spelling (oneof is on the wire; manyof is what the Python SDK reads)",
  },
  {
    ops: ['getEvents', 'getEvent'],
    details: [
      'response Event.percent_complete: nullable in Stratus only',
      'response Event.rate: nullable in Stratus only',
    ],
    reason:
      'the spec marks percent_complete nullable (null while scheduled); rate exists only for some events',
  },
  {
    ops: ['getNotifications'],
    details: [
      'response Notification.until: nullable in Stratus only',
      'response Notification.when: nullable in Stratus only',
    ],
    reason:
      'a notification without a time (an outstanding balance, a migration with no end) has when or until null',
  },
  // Identity: profile, tokens, SSH keys, account, users and grants.
  {
    ops: ['updateProfile'],
    details: [
      'request Profile: field restricted only in reference',
      'request Profile: field ip_whitelist_enabled only in reference',
    ],
    reason:
      'PUT /profile ignores restricted (only an unrestricted user changes it, through PUT /account/users/{username}) and the deprecated ip_whitelist_enabled',
  },
  {
    ops: ['getProfileGrants', 'getUserGrants', 'updateUserGrants'],
    details: ['response GrantsResponse: field firewall only in Stratus'],
    reason:
      'firewalls are entities of the spec that need per-entity permissions (read_write to modify); the reference revision has only global.add_firewalls',
  },
  {
    ops: ['updateUserGrants'],
    details: ['request GrantsResponse: field firewall only in Stratus'],
    reason: 'firewall grants are set like every other entity type',
  },
  {
    ops: ['updateUserGrants'],
    details: ['request Grant: required [id, permissions] in Stratus, [] in reference'],
    reason:
      'the reference reuses the response schema; an item without id names no entity, one without permissions changes nothing (null means no access)',
  },
  {
    ops: [
      'getPersonalAccessTokens',
      'createPersonalAccessToken',
      'getPersonalAccessToken',
      'updatePersonalAccessToken',
    ],
    details: ['response PersonalAccessToken.expiry: nullable in Stratus only'],
    reason:
      'a token created without expiry (or with null) never expires and shows expiry null, as the reference text says',
  },
  {
    ops: ['createPersonalAccessToken'],
    details: ['request expiry: nullable in Stratus only'],
    reason: 'expiry null means never expires, as the reference text says',
  },
  {
    ops: ['addSSHKey'],
    details: ['request SSHKey: required [ssh_key] in Stratus, [] in reference'],
    reason: 'the reference reuses the response schema; a key cannot be added without ssh_key',
  },
  {
    ops: ['getAccount', 'updateAccount'],
    details: [
      'response Account.credit_card.last_four: nullable in Stratus only',
      'response Account.credit_card.expiry: nullable in Stratus only',
    ],
    reason: 'Stratus holds no payment card: both are null, as for an account without a card',
  },
  {
    ops: ['getAccountSettings', 'updateAccountSettings'],
    details: ['response AccountSettings.longview_subscription: nullable in Stratus only'],
    reason: 'null means Longview Free, as the reference text says (the plan: PUT /longview/plan)',
  },
  // Compute instances.
  {
    ops: [
      'getComputeInstances',
      'createComputeInstance',
      'getComputeInstance',
      'updateComputeInstance',
      'cloneComputeInstance',
      'rebuildComputeInstance',
    ],
    details: ['response Compute.backups.last_successful: nullable in Stratus only'],
    reason:
      "null when there was no backup, as the reference text says ('null' if there was no previous backup)",
  },
  {
    ops: ['createComputeInstance'],
    details: ['request image: nullable in Stratus only'],
    reason:
      'image null means no image (an empty instance), as SDKs that send unset arguments as null expect',
  },
  {
    ops: ['rebootComputeInstance'],
    details: ['request config_id: nullable in Stratus only'],
    reason: 'the spec: config_id null or omitted reboots into the last booted config',
  },
  // Disks, configs and interfaces.
  {
    ops: ['addComputeConfig', 'updateComputeConfig'],
    details: ['request ComputeConfigInterface: required [purpose] in Stratus, [] in reference'],
    reason:
      'a reference bug: required [purpose] is placed on the interfaces array instead of its items',
  },
  {
    ops: ['getComputeConfigs', 'addComputeConfig', 'getComputeConfig', 'updateComputeConfig'],
    details: [
      'response Device: nullable in Stratus only',
      'response Device.disk_id: nullable in Stratus only',
      'response Device.volume_id: nullable in Stratus only',
    ],
    reason:
      'the spec: a device slot may be null (empty); a slot holds a disk or a volume, the other id is null',
  },
  {
    ops: ['addComputeConfig', 'updateComputeConfig', 'rescueComputeInstance'],
    details: [
      'request Device: nullable in Stratus only',
      'request Device.disk_id: nullable in Stratus only',
      'request Device.volume_id: nullable in Stratus only',
    ],
    reason: 'the spec: a device slot may be null (empty), sent as it is answered',
  },
  {
    ops: ['addComputeConfig', 'updateComputeConfig'],
    details: ['request ComputeConfigInterfaces: nullable in Stratus only'],
    reason: 'interfaces null counts as omitted (unchanged), as some clients send for "not set"',
  },
  // Compute, advanced: backups, clone, migrate, resize, rebuild, rescue.
  {
    ops: ['rescueComputeInstance'],
    details: ['request RescueDevices: field sdh only in Stratus'],
    reason:
      'sdh is declared so that it is refused with a 400 naming devices.sdh (the spec: sdh is reserved), instead of being dropped silently',
  },
  {
    ops: ['createSnapshot', 'getBackup', 'getBackups'],
    details: ['response Backup.finished: nullable in Stratus only'],
    reason: 'null until the backup has finished',
  },
  {
    ops: ['getBackups'],
    details: ['response automatic[].finished: nullable in Stratus only'],
    reason: 'null until the backup has finished',
  },
  {
    ops: ['getBackups'],
    details: ['response Backup: nullable in Stratus only'],
    reason:
      'snapshot.in_progress and snapshot.current are null when there is no such snapshot, as the reference text says',
  },
  // IP addresses and statistics.
  {
    ops: [
      'getComputeIPs',
      'addComputeIP',
      'getComputeIP',
      'updateComputeIP',
      'allocateIP',
      'getIP',
      'updateIP',
    ],
    details: ['response IPAddress.vpc_nat_1_1: nullable in Stratus only'],
    reason: 'null when the address has no 1:1 NAT to a VPC interface (always, until VPCs exist)',
  },
  {
    ops: ['getIPs'],
    details: ['response IPAddressesListResponse.data[].vpc_nat_1_1: nullable in Stratus only'],
    reason: 'null when the address has no 1:1 NAT to a VPC interface (always, until VPCs exist)',
  },
  {
    ops: ['getComputeIPs'],
    details: [
      'response IPAddressPrivate.gateway: nullable in Stratus only',
      'response IPAddressPrivate.rdns: nullable in Stratus only',
    ],
    reason:
      'private addresses have no gateway and no reverse DNS: null, as in the reference example',
  },
  {
    ops: ['getComputeIPs'],
    details: [
      'response IPAddressV6LinkLocal.rdns: nullable in Stratus only',
      'response IPAddressV6Slaac.rdns: nullable in Stratus only',
    ],
    reason: 'link-local addresses have no reverse DNS; a SLAAC address has none until it is set',
  },
  {
    ops: ['getComputeIPs'],
    details: [
      'response IPAddressesVPCListResponse: field pages only in reference',
      'response IPAddressesVPCListResponse: field page only in reference',
      'response IPAddressesVPCListResponse: field results only in reference',
      'response IPAddressesVPCListResponse: field data only in reference',
      'response IPAddressesVPCListResponse: field active only in Stratus',
      'response IPAddressesVPCListResponse: field address only in Stratus',
      'response IPAddressesVPCListResponse: field address_range only in Stratus',
      'response IPAddressesVPCListResponse: field config_id only in Stratus',
      'response IPAddressesVPCListResponse: field gateway only in Stratus',
      'response IPAddressesVPCListResponse: field interface_id only in Stratus',
      'response IPAddressesVPCListResponse: field compute_id only in Stratus',
      'response IPAddressesVPCListResponse: field nat_1_1 only in Stratus',
      'response IPAddressesVPCListResponse: field prefix only in Stratus',
      'response IPAddressesVPCListResponse: field region only in Stratus',
      'response IPAddressesVPCListResponse: field subnet_id only in Stratus',
      'response IPAddressesVPCListResponse: field subnet_mask only in Stratus',
      'response IPAddressesVPCListResponse: field vpc_id only in Stratus',
    ],
    reason:
      'a reference bug: ipv4.vpc items are typed as the paged list envelope; Stratus lists the VPC address objects themselves (the envelope data items)',
  },
  {
    ops: ['getIPs'],
    details: ['query skip_ipv6_rdns: only in Stratus', 'request body: only in reference'],
    reason: 'skip_ipv6_rdns is a query parameter: the reference puts a body on a GET',
  },
  {
    ops: ['getPaymentMethods', 'getPaymentMethod'],
    details: [
      'response PaymentMethod.data: field email only in reference',
      'response PaymentMethod.data: field paypal_id only in reference',
    ],
    reason:
      'only credit cards can be added through the API (the spec); data is the card shape, without the Google Pay and PayPal variants',
  },
  {
    ops: ['getComputeStats', 'getComputeStatsByYearMonth'],
    details: ['response ComputeStats: field data only in Stratus'],
    reason:
      'the series are also under data, where the provider clients read them ({title, data: {cpu, io, netv4, netv6}})',
  },
  // VPCs.
  {
    ops: ['createVPC'],
    details: ['request VPCSubnet: required [ipv4, label] in Stratus, [] in reference'],
    reason:
      'a reference bug: required [ipv4, label] is placed on the subnets array instead of its items',
  },
  // Tags and NodeBalancers.
  // Domains.
  {
    ops: ['getDomains', 'createDomain', 'getDomain', 'updateDomain', 'cloneDomain', 'importDomain'],
    details: [
      'response Domain: field created only in Stratus',
      'response Domain: field errors only in Stratus',
      'response Domain: field updated only in Stratus',
    ],
    reason:
      'the recorded wire shows created, updated and errors (a string) on every domain; errors is "" or why a slave zone could not be transferred',
  },
  {
    ops: ['getDomainZone', 'cloneDomain'],
    details: ['path domainId: type integer in Stratus, string in reference'],
    reason: 'a domain id is an integer on every other domain path of the reference',
  },
  {
    ops: ['createDomain'],
    details: [
      'request axfr_ips: nullable in Stratus only',
      'request description: nullable in Stratus only',
      'request expire_sec: nullable in Stratus only',
      'request group: nullable in Stratus only',
      'request master_ips: nullable in Stratus only',
      'request refresh_sec: nullable in Stratus only',
      'request retry_sec: nullable in Stratus only',
      'request soa_email: nullable in Stratus only',
      'request status: nullable in Stratus only',
      'request tags: nullable in Stratus only',
      'request ttl_sec: nullable in Stratus only',
    ],
    reason:
      'clients send null for the fields they leave unset (the recorded wire: master_ips, axfr_ips and tags null); null means not given',
  },
  {
    ops: ['updateDomain'],
    details: [
      'request Domain.axfr_ips: nullable in Stratus only',
      'request Domain.description: nullable in Stratus only',
      'request Domain.domain: nullable in Stratus only',
      'request Domain.expire_sec: nullable in Stratus only',
      'request Domain.group: nullable in Stratus only',
      'request Domain.master_ips: nullable in Stratus only',
      'request Domain.refresh_sec: nullable in Stratus only',
      'request Domain.retry_sec: nullable in Stratus only',
      'request Domain.soa_email: nullable in Stratus only',
      'request Domain.status: nullable in Stratus only',
      'request Domain.tags: nullable in Stratus only',
      'request Domain.ttl_sec: nullable in Stratus only',
      'request Domain.type: nullable in Stratus only',
    ],
    reason: 'null means not given: the stored value stays',
  },
  {
    ops: ['createDomainRecord', 'updateDomainRecord'],
    details: [
      'request name: nullable in Stratus only',
      'request port: nullable in Stratus only',
      'request priority: nullable in Stratus only',
      'request target: nullable in Stratus only',
      'request ttl_sec: nullable in Stratus only',
      'request weight: nullable in Stratus only',
    ],
    reason: 'null means not given: the default (create) or the stored value (update)',
  },
  {
    ops: ['getTaggedObjects'],
    details: ['response data[].data: field errors only in Stratus'],
    reason:
      'a tagged domain is shown as the domain view answers it (with errors, as the recorded wire has it)',
  },
  {
    ops: ['getTaggedObjects'],
    details: ['response data[].data.backups.last_successful: nullable in Stratus only'],
    reason:
      "a tagged instance is shown as the instance's own view answers it (null without backup)",
  },
  {
    ops: ['createNodeBalancer'],
    details: ['request NodeBalancerNode: required [address, label] in Stratus, [] in reference'],
    reason:
      'the reference reuses the node schema; a node needs address and label, as Node Create requires',
  },
  {
    ops: ['rebuildNodeBalancerConfig'],
    details: ['request nodes[]: required [address, label] in Stratus, [] in reference'],
    reason: 'a node needs address and label, as Node Create requires',
  },
  {
    ops: ['getNodeBalancerStats'],
    details: [
      'operationId: getNodeBalancerStats in Stratus, undefined in reference',
      'response NodeBalancerStats.data.connections[]: type array in Stratus, number in reference',
      'response NodeBalancerStats.data.traffic.in[]: type array in Stratus, number in reference',
      'response NodeBalancerStats.data.traffic.out[]: type array in Stratus, number in reference',
    ],
    reason:
      'the reference gives the operation no operationId; its series are [timestamp_ms, value] pairs, as the reference examples and descriptions show (the item type number is a reference bug)',
  },
  {
    ops: ['createNodeBalancer'],
    details: ['request (body): field client_udp_sess_throttle only in Stratus'],
    reason:
      'the UDP session throttle: the wire records it on NodeBalancers, the clients send it (the reference revision predates UDP)',
  },
  {
    ops: ['updateNodeBalancer'],
    details: ['request NodeBalancer: field client_udp_sess_throttle only in Stratus'],
    reason: 'the UDP session throttle (the wire and the clients)',
  },
  {
    ops: ['rebuildNodeBalancerConfig'],
    details: ['request (body): field udp_check_port only in Stratus'],
    reason: 'the UDP health-check port of a rebuilt config (the wire and the clients)',
  },
  {
    ops: ['createNodeBalancer'],
    details: ['request configs[]: field udp_check_port only in Stratus'],
    reason: 'the UDP health-check port of an inline config (the wire and the clients)',
  },
  {
    ops: ['createNodeBalancerConfig', 'updateNodeBalancerConfig'],
    details: ['request NodeBalancerConfig: field udp_check_port only in Stratus'],
    reason: 'the UDP health-check port of a config (the wire and the clients)',
  },
  // NodeBalancers in VPCs and NodeBalancer types: newer than the reference revision.
  {
    ops: ['createNodeBalancer'],
    details: [
      'request (body): field type only in Stratus',
      'request (body): field vpcs only in Stratus',
      'request NodeBalancerNode: field subnet_id only in Stratus',
    ],
    reason:
      'NodeBalancer `type` and `vpcs` (a /30 of a subnet), and nodes by VPC address with `subnet_id` (the clients send them)',
  },
  {
    ops: ['createNodeBalancerNode'],
    details: ['request (body): field subnet_id only in Stratus'],
    reason:
      "a node reached by its VPC address names the subnet of the NodeBalancer's VPC configuration",
  },
  {
    ops: ['updateNodeBalancerNode'],
    details: ['request NodeBalancerNode: field subnet_id only in Stratus'],
    reason:
      "a node reached by its VPC address names the subnet of the NodeBalancer's VPC configuration",
  },
  {
    ops: ['rebuildNodeBalancerConfig'],
    details: ['request nodes[]: field subnet_id only in Stratus'],
    reason: "a rebuilt config's nodes by VPC address (the clients send `subnet_id`)",
  },
  {
    ops: ['getNodeBalancerVpcConfigs'],
    details: ['GET /nodebalancers/{nodeBalancerId}/vpcs: not in reference'],
    reason: 'the VPC configurations of a NodeBalancer (later API revisions; the recorded wire)',
  },
  {
    ops: ['getNodeBalancerVpcConfig'],
    details: ['GET /nodebalancers/{nodeBalancerId}/vpcs/{vpcConfigId}: not in reference'],
    reason: 'the VPC configurations of a NodeBalancer (later API revisions; the recorded wire)',
  },
  // Firewalls.
  {
    ops: ['createFirewalls'],
    details: [
      'request (body): required [label, rules] in Stratus, [rules] in reference',
      'request rules: required [inbound_policy, outbound_policy] in Stratus, [] in reference',
    ],
    reason:
      'a reference bug: the required lists sit beside allOf and on the rules property; the spec requires label, rules and both policies',
  },
  {
    ops: ['createFirewalls', 'updateFirewallRules'],
    details: ['request FirewallRuleConfig: field ruleset only in Stratus'],
    reason: 'a rule may name a rule set (later API revisions; the Go SDK sends {ruleset: id})',
  },
  {
    ops: [
      'createFirewalls',
      'updateFirewallRules',
      'getFirewalls',
      'getFirewall',
      'updateFirewall',
      'getFirewallRules',
      'getComputeFirewalls',
      'getNodeBalancerFirewalls',
    ],
    details: ['response FirewallRuleConfig: field ruleset only in Stratus'],
    reason: 'a rule may name a rule set (later API revisions; the Go SDK reads {ruleset: id})',
  },
  {
    ops: ['assignIPs', 'assignIPv4s'],
    details: [
      'request IPAddressesAssignRequest.assignments[]: required [address, compute_id] in Stratus, [] in reference',
    ],
    reason:
      'a reference bug: required [address, compute_id] is placed on the assignments array instead of its items',
  },
  // Images and StackScripts.
  {
    ops: ['createImage', 'uploadImage'],
    details: ['request (body): field tags only in Stratus'],
    reason: 'private images take tags on create and upload, as later API revisions do',
  },
  {
    ops: ['updateImage'],
    details: ['request Image: field tags only in Stratus'],
    reason: "a private image's tags are replaced by update, as later API revisions do",
  },
  {
    ops: ['getImages', 'getImage', 'createImage', 'updateImage', 'uploadImage'],
    details: ['response Image: field tags only in Stratus'],
    reason: 'an image shows its tags (public images: always [])',
  },
  {
    ops: ['getImages', 'getImage', 'createImage', 'updateImage', 'uploadImage'],
    details: ['response Image.created_by: nullable in Stratus only'],
    reason:
      'a shared image (shared/<n>) a share group member lists has created_by null, as the group entries it is (the wire)',
  },
  {
    ops: ['replicateImage'],
    details: ['POST /images/{imageId}/regions: not in reference'],
    reason:
      'image replication (later API revisions; shapes from the recorded traffic and the SDKs)',
  },
  {
    ops: ['uploadImage'],
    details: ['operationId: uploadImage in Stratus, undefined in reference'],
    reason: 'the reference gives POST /images/upload no operationId; every Stratus route has one',
  },
  {
    ops: ['getStackScript', 'updateStackScript', 'deleteStackScript'],
    details: ['path stackscriptId: type integer in Stratus, string in reference'],
    reason: 'StackScript ids are integers (StackScript.id); a non-integer id names no script: 404',
  },
  {
    ops: ['getStackScripts'],
    details: ['security: public in Stratus, oauth [stackscripts:read_only] in reference'],
    reason:
      "the reference text: without authentication only public StackScripts are listed; a token with stackscripts:read_only adds the account's own",
  },
  // OAuth: clients, the login service's grants, logins.
  {
    ops: ['getProfileApps', 'getProfileApp'],
    details: ['response AuthorizedApp.thumbnail_url: nullable in Stratus only'],
    reason: 'null while the client has no thumbnail, as OAuthClient.thumbnail_url is',
  },
  {
    ops: ['getSecurityQuestions'],
    details: [
      'response SecurityQuestionsGet.security_questions[].response: nullable in Stratus only',
    ],
    reason: 'an unanswered question has response null, as the reference text says',
  },
  {
    ops: ['postSecurityQuestions'],
    details: [
      'request SecurityQuestionsPost: required [security_questions] in Stratus, [] in reference',
      'request SecurityQuestionsPost.security_questions[]: required [question_id, response] in Stratus, [] in reference',
    ],
    reason:
      'the reference reuses the response schema; it requires exactly three questions, each with an answer',
  },
  {
    ops: [
      'getObjectStorageClusters',
      'getObjectStorageBuckets',
      'getObjectStorageBucketinCluster',
      'getObjectStorageKeys',
    ],
    details: ['query page: only in Stratus', 'query page_size: only in Stratus'],
    reason: 'object storage collections are paged like every other collection',
  },
  {
    ops: [
      'createObjectStorageKeys',
      'getObjectStorageKeys',
      'getObjectStorageKey',
      'updateObjectStorageKey',
    ],
    details: ['response ObjectStorageKey.bucket_access: nullable in Stratus only'],
    reason: 'an unlimited key has bucket_access null, as the real service answers',
  },
  {
    ops: ['createObjectStorageKeys'],
    details: [
      'request ObjectStorageKey.bucket_access[]: required [bucket_name, permissions] in Stratus, [] in reference',
    ],
    reason:
      'a bucket_access entry names a bucket and a permission (and its region or cluster), or it grants nothing',
  },
  {
    ops: ['getObjectStorageBucketContent'],
    details: [
      'response (body): field is_truncated only in Stratus',
      'response (body): field next_marker only in Stratus',
      'response ObjectStorageObject: field is_truncated only in reference',
      'response ObjectStorageObject: field next_marker only in reference',
    ],
    reason:
      'next_marker and is_truncated describe the page, so they sit beside data (as the real service answers), not in each object',
  },
  // Billing engine.
  {
    ops: ['getPayments', 'getPayment', 'createPayment'],
    details: ['response Payment.usd: type number in Stratus, integer in reference'],
    reason:
      'payments are in dollars and cents (the reference\'s own example is "120.50"); an integer would drop the cents',
  },
  {
    ops: ['getVolumeTypes'],
    details: ['GET /volumes/types: not in reference'],
    reason: 'the price catalogue of volumes (later API revisions), public like /compute/types',
  },
  {
    ops: ['getVPCDefaultRanges'],
    details: ['GET /vpcs/default-ranges: not in reference'],
    reason: 'the IPv4 ranges VPC subnets may use (later API revisions), read by any token',
  },
  // VPC IPv6 (later API revisions; shapes from the recorded traffic and the clients).
  {
    ops: ['getRegionsVPCAvailability'],
    details: ['GET /regions/vpc-availability: not in reference'],
    reason: 'VPC availability by region, with the VPC IPv6 prefix lengths left in each pool',
  },
  {
    ops: ['getRegionVPCAvailability'],
    details: ['GET /regions/{regionId}/vpc-availability: not in reference'],
    reason: 'VPC availability of one region',
  },
  {
    ops: ['createVPC'],
    details: [
      'request (body): field ipv6 only in Stratus',
      'request VPCSubnet: field ipv6 only in Stratus',
    ],
    reason: 'dual-stack VPCs: the IPv6 range of a VPC and of its subnets (the clients send them)',
  },
  {
    ops: ['createVPC'],
    details: [
      'request (body): field ipv4 only in Stratus',
      'request (body): field vpc_type only in Stratus',
    ],
    reason:
      "a VPC's own IPv4 ranges (regions with Custom VPC IPv4 Ranges) and its type (regular, rdma): later revisions, the Go SDK sends them and the wire shows them",
  },
  {
    ops: ['updateVPC'],
    details: ['request (body): field ipv4 only in Stratus'],
    reason: "a VPC's own IPv4 ranges are replaced by an update (the Go SDK sends them)",
  },
  {
    ops: ['deleteVLAN'],
    details: ['DELETE /networking/vlans/{regionId}/{label}: not in reference'],
    reason:
      'deleting a VLAN that outlives its interfaces (later revisions; the Python SDK calls it)',
  },
  {
    ops: ['getAllVPCIPv6s'],
    details: ['GET /vpcs/ipv6s: not in reference'],
    reason: 'the IPv6 ranges of VPC interfaces, by interface (later API revisions)',
  },
  {
    ops: ['getVPCIPv6s'],
    details: ['GET /vpcs/{vpcId}/ipv6s: not in reference'],
    reason: "the IPv6 ranges of one VPC's interfaces",
  },
  {
    ops: ['addComputeConfig', 'createComputeInstance', 'updateComputeConfig'],
    details: ['request ComputeConfigInterface: field ipv6 only in Stratus'],
    reason:
      'the IPv6 of a VPC interface on a dual-stack subnet (slaac, ranges, is_public), as the SDKs send it',
  },
  {
    ops: ['addComputeConfigInterface', 'updateComputeConfigInterface'],
    details: ['request (body): field ipv6 only in Stratus'],
    reason: 'the IPv6 of a VPC interface, added or changed on its own',
  },
  {
    ops: ['createVPCSubnet'],
    details: ['request (body): field ipv6 only in Stratus'],
    reason: "a subnet's IPv6 range, carved from its VPC's (the clients send it)",
  },
  {
    ops: ['getNodeBalancerTypes'],
    details: ['GET /nodebalancers/types: not in reference'],
    reason: 'the price catalogue of NodeBalancers (later API revisions), public',
  },
  {
    ops: ['getObjectStorageTypes'],
    details: ['GET /object-storage/types: not in reference'],
    reason: 'the price catalogue of object storage (later API revisions), public',
  },
  // Object storage by region: newer than the reference revision (the recorded wire, the SDKs).
  {
    ops: ['createObjectStorageBucket'],
    details: [
      'request (body): field endpoint_type only in Stratus',
      'request (body): field region only in Stratus',
      'request (body): field s3_endpoint only in Stratus',
      'request (body): required [label] in Stratus, [cluster, label] in reference',
    ],
    reason:
      'buckets are created by `region` (the deprecated `cluster` still works; one of the two is needed), with the endpoint type and S3 endpoint the SDKs send',
  },
  {
    ops: ['createObjectStorageKeys'],
    details: ['request ObjectStorageKey: field regions only in Stratus'],
    reason: 'keys limited to regions, as the SDKs create them',
  },
  {
    ops: ['updateObjectStorageKey'],
    details: ['request (body): field regions only in Stratus'],
    reason: 'keys limited to regions, as the SDKs update them',
  },
  {
    ops: ['createObjectStorageKeys'],
    details: ['request ObjectStorageKey.bucket_access[]: field region only in Stratus'],
    reason: 'a bucket of a key is named by its `region` (or the deprecated `cluster`)',
  },
  {
    ops: ['getObjectStorageBucketAccess'],
    details: ['GET /object-storage/buckets/{clusterId}/{bucket}/access: not in reference'],
    reason: 'the bucket access view (later revisions; the recorded wire)',
  },
  {
    ops: ['getObjectStorageEndpoints'],
    details: ['GET /object-storage/endpoints: not in reference'],
    reason: 'object storage endpoints (later revisions; the recorded wire)',
  },
  {
    ops: ['getObjectStorageQuotas'],
    details: ['GET /object-storage/quotas: not in reference'],
    reason: 'object storage quotas (later revisions; the recorded wire)',
  },
  {
    ops: ['getObjectStorageQuota'],
    details: ['GET /object-storage/quotas/{quotaId}: not in reference'],
    reason: 'object storage quotas (later revisions; the recorded wire)',
  },
  {
    ops: ['getObjectStorageQuotaUsage'],
    details: ['GET /object-storage/quotas/{quotaId}/usage: not in reference'],
    reason: 'object storage quotas (later revisions; the recorded wire)',
  },
  {
    ops: ['getObjectStorageGlobalQuotas'],
    details: ['GET /object-storage/global-quotas: not in reference'],
    reason: 'object storage global quotas (later revisions; the recorded wire)',
  },
  {
    ops: ['getObjectStorageGlobalQuota'],
    details: ['GET /object-storage/global-quotas/{quotaId}: not in reference'],
    reason: 'object storage global quotas (later revisions; the recorded wire)',
  },
  {
    ops: ['getObjectStorageGlobalQuotaUsage'],
    details: ['GET /object-storage/global-quotas/{quotaId}/usage: not in reference'],
    reason: 'object storage global quotas (later revisions; the recorded wire)',
  },
  {
    ops: ['getNetworkTransferPrices'],
    details: ['GET /network-transfer/prices: not in reference'],
    reason: 'the price catalogue of network transfer (later API revisions), public',
  },
  // Firewall rules history, default firewalls and templates: newer than the reference revision.
  {
    ops: ['getFirewallRuleVersions'],
    details: ['GET /networking/firewalls/{firewallId}/history: not in reference'],
    reason:
      'the rules history of a firewall (later API revisions; shapes from the Python SDK and its fixtures)',
  },
  {
    ops: ['getFirewallRuleVersion'],
    details: ['GET /networking/firewalls/{firewallId}/history/rules/{version}: not in reference'],
    reason:
      'one version of the rules of a firewall (later API revisions; shapes from the Python SDK and its fixtures)',
  },
  {
    ops: ['getFirewallSettings'],
    details: ['GET /networking/firewalls/settings: not in reference'],
    reason:
      'the default firewalls of the account (later API revisions; shapes from the recorded traffic)',
  },
  {
    ops: ['updateFirewallSettings'],
    details: ['PUT /networking/firewalls/settings: not in reference'],
    reason:
      'the default firewalls of the account (later API revisions; shapes from the recorded traffic)',
  },
  {
    ops: ['getFirewallTemplates'],
    details: ['GET /networking/firewalls/templates: not in reference'],
    reason: 'firewall templates (later API revisions; shapes from the recorded traffic)',
  },
  {
    ops: ['getFirewallTemplate'],
    details: ['GET /networking/firewalls/templates/{slug}: not in reference'],
    reason: 'firewall templates (later API revisions; shapes from the recorded traffic)',
  },
  {
    ops: ['getFirewallRulesets'],
    details: ['GET /networking/firewalls/rulesets: not in reference'],
    reason: 'firewall rule sets (later API revisions; shapes from the recorded traffic)',
  },
  {
    ops: ['createFirewallRuleset'],
    details: ['POST /networking/firewalls/rulesets: not in reference'],
    reason: 'firewall rule sets (later API revisions; shapes from the recorded traffic)',
  },
  {
    ops: ['getFirewallRuleset'],
    details: ['GET /networking/firewalls/rulesets/{rulesetId}: not in reference'],
    reason: 'firewall rule sets (later API revisions; shapes from the recorded traffic)',
  },
  {
    ops: ['updateFirewallRuleset'],
    details: ['PUT /networking/firewalls/rulesets/{rulesetId}: not in reference'],
    reason: 'firewall rule sets (later API revisions; shapes from the recorded traffic)',
  },
  {
    ops: ['deleteFirewallRuleset'],
    details: ['DELETE /networking/firewalls/rulesets/{rulesetId}: not in reference'],
    reason: 'firewall rule sets (later API revisions; shapes from the recorded traffic)',
  },
  {
    ops: ['getFirewallRulesExpansion'],
    details: ['GET /networking/firewalls/{firewallId}/rules/expansion: not in reference'],
    reason: 'the rules with each rule set named put in place (later API revisions; the Go SDK)',
  },
  // Interfaces of the compute generation: newer than the reference revision (the SDKs' shapes).
  ...(
    [
      ['getComputeInterfaces', 'GET /compute/instances/{computeId}/interfaces'],
      ['addComputeInterface', 'POST /compute/instances/{computeId}/interfaces'],
      ['getComputeInterfaceSettings', 'GET /compute/instances/{computeId}/interfaces/settings'],
      ['updateComputeInterfaceSettings', 'PUT /compute/instances/{computeId}/interfaces/settings'],
      ['getComputeInterface', 'GET /compute/instances/{computeId}/interfaces/{interfaceId}'],
      ['updateComputeInterface', 'PUT /compute/instances/{computeId}/interfaces/{interfaceId}'],
      ['deleteComputeInterface', 'DELETE /compute/instances/{computeId}/interfaces/{interfaceId}'],
      [
        'getComputeInterfaceFirewalls',
        'GET /compute/instances/{computeId}/interfaces/{interfaceId}/firewalls',
      ],
      ['upgradeComputeInterfaces', 'POST /compute/instances/{computeId}/upgrade-interfaces'],
    ] as const
  ).map(([op, path]) => ({
    ops: [op],
    details: [`${path}: not in reference`],
    reason: 'interfaces of the compute generation (later API revisions; shapes from the SDKs)',
  })),
  {
    ops: ['createComputeInstance'],
    details: [
      'request (body): field interface_generation only in Stratus',
      'request ComputeConfigInterface: field default_route only in Stratus',
      'request ComputeConfigInterface: field firewall_id only in Stratus',
      'request ComputeConfigInterface: field public only in Stratus',
      'request ComputeConfigInterface: field vlan only in Stratus',
      'request ComputeConfigInterface: field vpc only in Stratus',
    ],
    reason:
      "an instance of the compute generation: `interfaces` items are the SDKs' new shape (purpose is then checked by the service)",
  },
  {
    ops: ['updateAccountSettings'],
    details: ['request AccountSettings: field interfaces_for_new_computes only in Stratus'],
    reason: 'the account setting of the interface generations (the SDKs send it)',
  },
  {
    ops: ['createFirewallDevice', 'getFirewallDevice', 'getFirewallDevices'],
    details: ['response FirewallDevices.entity.label: nullable in Stratus only'],
    reason: 'an interface device (`compute_interface`) has no label (the wire)',
  },
  {
    ops: ['getAllVPCIPs', 'getVPCIPs'],
    details: ['response IPAddressesVPCListResponse.data[].config_id: nullable in Stratus only'],
    reason: "an instance's own VPC interface belongs to no profile",
  },
  // Placement groups, reserved IPv4 addresses and resource locks: newer than the reference revision.
  {
    ops: ['getPlacementGroups'],
    details: ['GET /placement/groups: not in reference'],
    reason: 'placement groups (later API revisions; shapes from the recorded traffic)',
  },
  {
    ops: ['postPlacementGroup'],
    details: ['POST /placement/groups: not in reference'],
    reason: 'placement groups (later API revisions; shapes from the recorded traffic)',
  },
  {
    ops: ['getPlacementGroup'],
    details: ['GET /placement/groups/{groupId}: not in reference'],
    reason: 'placement groups (later API revisions; shapes from the recorded traffic)',
  },
  {
    ops: ['putPlacementGroup'],
    details: ['PUT /placement/groups/{groupId}: not in reference'],
    reason: 'placement groups (later API revisions; shapes from the recorded traffic)',
  },
  {
    ops: ['deletePlacementGroup'],
    details: ['DELETE /placement/groups/{groupId}: not in reference'],
    reason: 'placement groups (later API revisions; shapes from the recorded traffic)',
  },
  {
    ops: ['postGroupAddCompute'],
    details: ['POST /placement/groups/{groupId}/assign: not in reference'],
    reason: 'placement groups (later API revisions; shapes from the recorded traffic)',
  },
  {
    ops: ['postGroupUnassign'],
    details: ['POST /placement/groups/{groupId}/unassign: not in reference'],
    reason: 'placement groups (later API revisions; shapes from the recorded traffic)',
  },
  {
    ops: ['getReservedIps'],
    details: ['GET /networking/reserved/ips: not in reference'],
    reason: 'reserved IPv4 addresses (later API revisions; shapes from the recorded traffic)',
  },
  {
    ops: ['postReserveIp'],
    details: ['POST /networking/reserved/ips: not in reference'],
    reason: 'reserved IPv4 addresses (later API revisions; shapes from the recorded traffic)',
  },
  {
    ops: ['getReservedIpTypes'],
    details: ['GET /networking/reserved/ips/types: not in reference'],
    reason: 'reserved IPv4 addresses (later API revisions; shapes from the recorded traffic)',
  },
  {
    ops: ['getReservedIp'],
    details: ['GET /networking/reserved/ips/{address}: not in reference'],
    reason: 'reserved IPv4 addresses (later API revisions; shapes from the recorded traffic)',
  },
  {
    ops: ['putReservedIp'],
    details: ['PUT /networking/reserved/ips/{address}: not in reference'],
    reason: 'reserved IPv4 addresses (later API revisions; shapes from the recorded traffic)',
  },
  {
    ops: ['deleteReservedIp'],
    details: ['DELETE /networking/reserved/ips/{address}: not in reference'],
    reason: 'reserved IPv4 addresses (later API revisions; shapes from the recorded traffic)',
  },
  {
    ops: ['getResourceLocks'],
    details: ['GET /locks: not in reference'],
    reason: 'resource locks (later API revisions; shapes from the recorded traffic)',
  },
  {
    ops: ['postResourceLock'],
    details: ['POST /locks: not in reference'],
    reason: 'resource locks (later API revisions; shapes from the recorded traffic)',
  },
  {
    ops: ['getResourceLock'],
    details: ['GET /locks/{lockId}: not in reference'],
    reason: 'resource locks (later API revisions; shapes from the recorded traffic)',
  },
  {
    ops: ['deleteResourceLock'],
    details: ['DELETE /locks/{lockId}: not in reference'],
    reason: 'resource locks (later API revisions; shapes from the recorded traffic)',
  },
  {
    ops: [
      'addComputeIP',
      'allocateIP',
      'getComputeIP',
      'getIP',
      'updateComputeIP',
      'updateIP',
      'getComputeIPs',
    ],
    details: [
      'response IPAddress.compute_id: nullable in Stratus only',
      'response IPAddress: field assigned_entity only in Stratus',
      'response IPAddress: field interface_id only in Stratus',
      'response IPAddress: field reserved only in Stratus',
      'response IPAddress: field tags only in Stratus',
    ],
    reason:
      'the recorded IPv4 shape: reserved, assigned_entity (null and compute_id null for an unassigned reserved address), interface_id (null: addresses of configs); tags on reserved addresses only',
  },
  {
    ops: ['getComputeIPs'],
    details: [
      'response IPAddressPrivate.compute_id: nullable in Stratus only',
      'response IPAddressPrivate: field assigned_entity only in Stratus',
      'response IPAddressPrivate: field interface_id only in Stratus',
      'response IPAddressPrivate: field reserved only in Stratus',
    ],
    reason: 'private addresses carry the same newer fields as public ones',
  },
  {
    ops: ['getIPs'],
    details: [
      'response IPAddressesListResponse.data[].compute_id: nullable in Stratus only',
      'response IPAddressesListResponse.data[]: field assigned_entity only in Stratus',
      'response IPAddressesListResponse.data[]: field interface_id only in Stratus',
      'response IPAddressesListResponse.data[]: field reserved only in Stratus',
      'response IPAddressesListResponse.data[]: field tags only in Stratus',
    ],
    reason:
      'the account list shows unassigned reserved addresses (compute_id null) and the newer fields',
  },
  {
    ops: ['addComputeIP'],
    details: ['request (body): field address only in Stratus'],
    reason:
      'a reserved address of the account is assigned by naming it (the client libraries send address)',
  },
  {
    ops: ['allocateIP'],
    details: [
      'request (body): field region only in Stratus',
      'request (body): field reserved only in Stratus',
      'request (body): required [public, type] in Stratus, [compute_id, public, type] in reference',
      'request compute_id: nullable in Stratus only',
    ],
    reason:
      'reserved: true reserves the address; a reservation names a region or a Compute, so compute_id is required only when not reserving (the recorded refusal)',
  },
  {
    ops: ['updateIP'],
    details: [
      'request (body): field reserved only in Stratus',
      'request (body): required [] in Stratus, [rdns] in reference',
    ],
    reason:
      'reserved true or false reserves an address or ends its reservation; a body may change either field alone',
  },
  {
    ops: ['createComputeInstance'],
    details: ['request (body): field ipv4 only in Stratus'],
    reason: "ipv4 names one reserved address of the account as the new instance's public IPv4",
  },
  {
    ops: ['createComputeInstance', 'rebuildComputeInstance'],
    details: ['request (body): field disk_encryption only in Stratus'],
    reason:
      'local disk encryption of later API revisions, as the SDKs send it (enabled or disabled; the region must offer Disk Encryption)',
  },
  {
    ops: ['createVolume'],
    details: ['request (body): field encryption only in Stratus'],
    reason:
      'block storage encryption of later API revisions, as the SDKs send it (the region must offer Block Storage Encryption)',
  },
  {
    ops: ['createComputeInstance', 'cloneComputeInstance', 'migrateComputeInstance'],
    details: ['request (body): field placement_group only in Stratus'],
    reason: 'the placement group a new, cloned or migrated instance joins',
  },
  {
    ops: [
      'cloneComputeInstance',
      'createComputeInstance',
      'getComputeInstance',
      'getComputeInstances',
      'rebuildComputeInstance',
      'updateComputeInstance',
    ],
    details: [
      'response Compute: field locks only in Stratus',
      'response Compute: field placement_group only in Stratus',
    ],
    reason:
      'an instance shows its lock types and its placement group (null outside one), as the recorded traffic does',
  },
  {
    ops: [
      'attachVolume',
      'cloneVolume',
      'createVolume',
      'getComputeVolumes',
      'getVolume',
      'getVolumes',
      'resizeVolume',
      'updateVolume',
    ],
    details: ['response Volume: field locks only in Stratus'],
    reason: 'a volume shows its lock types, as the recorded traffic does',
  },
  {
    ops: [
      'createNodeBalancer',
      'getComputeNodeBalancers',
      'getNodeBalancer',
      'getNodeBalancers',
      'updateNodeBalancer',
    ],
    details: ['response NodeBalancer: field locks only in Stratus'],
    reason: 'a NodeBalancer shows its lock types',
  },
  {
    ops: ['createTag'],
    details: ['request (body): field reserved_ipv4_addresses only in Stratus'],
    reason: 'reserved addresses are tagged by their address',
  },
  {
    ops: ['getTaggedObjects'],
    details: [
      'response data[].data: field address only in Stratus',
      'response data[].data: field assigned_entity only in Stratus',
      'response data[].data: field gateway only in Stratus',
      'response data[].data: field interface_id only in Stratus',
      'response data[].data: field locks only in Stratus',
      'response data[].data: field placement_group only in Stratus',
      'response data[].data: field prefix only in Stratus',
      'response data[].data: field public only in Stratus',
      'response data[].data: field rdns only in Stratus',
      'response data[].data: field reserved only in Stratus',
      'response data[].data: field subnet_mask only in Stratus',
      'response data[].data: field vpc_nat_1_1 only in Stratus',
    ],
    reason:
      'tagged objects include reserved addresses (type reserved_ipv4_address) and instances, volumes and NodeBalancers with their newer fields',
  },
  // Support tickets.
  {
    ops: ['getTickets', 'createTicket', 'getTicket'],
    details: ['response SupportTicket.entity.id: nullable in Stratus only'],
    reason: 'a ticket about a VLAN names it by its label (a VLAN has no id): id null',
  },
  {
    ops: ['createTicket'],
    details: [
      'request SupportTicketRequest.compute_id: nullable in Stratus only',
      'request SupportTicketRequest.database_id: nullable in Stratus only',
      'request SupportTicketRequest.domain_id: nullable in Stratus only',
      'request SupportTicketRequest.firewall_id: nullable in Stratus only',
      'request SupportTicketRequest.lkecluster_id: nullable in Stratus only',
      'request SupportTicketRequest.longviewclient_id: nullable in Stratus only',
      'request SupportTicketRequest.managed_issue: nullable in Stratus only',
      'request SupportTicketRequest.nodebalancer_id: nullable in Stratus only',
      'request SupportTicketRequest.region: nullable in Stratus only',
      'request SupportTicketRequest.vlan: nullable in Stratus only',
      'request SupportTicketRequest.volume_id: nullable in Stratus only',
      'request SupportTicketRequest.vpc_id: nullable in Stratus only',
    ],
    reason: 'null for an optional field means not given (what SDKs send for unset fields)',
  },
  // Longview.
  {
    ops: ['createLongviewClient'],
    details: ['request LongviewClient.label: nullable in Stratus only'],
    reason: 'label null (as the Python SDK sends an unset label) gives the default longview<id>',
  },
  {
    ops: ['createLongviewClient'],
    details: [
      'response LongviewClient.apps.apache: type integer in Stratus, boolean in reference',
      'response LongviewClient.apps.mysql: type integer in Stratus, boolean in reference',
      'response LongviewClient.apps.nginx: type integer in Stratus, boolean in reference',
    ],
    reason:
      'the recorded wire: the real create answer carries apps as 0/1 (every other answer has booleans)',
  },
  // Managed.
  {
    ops: ['createManagedContact'],
    details: ['request ManagedContact: required [email, name] in Stratus, [] in reference'],
    reason: 'the reference reuses the response schema; a contact needs a name and an address',
  },
  {
    ops: [
      'createManagedCredential',
      'getManagedCredentials',
      'getManagedCredential',
      'updateManagedCredential',
    ],
    details: ['response ManagedCredential.last_decrypted: nullable in Stratus only'],
    reason: 'null until support first opens the credential',
  },
  {
    ops: ['createManagedCredential', 'updateManagedCredentialUsernamePassword'],
    details: ['request username: nullable in Stratus only'],
    reason: 'a credential may have no username (a password only); null says so',
  },
  {
    ops: [
      'createManagedService',
      'getManagedServices',
      'getManagedService',
      'updateManagedService',
      'disableManagedService',
      'enableManagedService',
    ],
    details: ['response ManagedService.region: nullable in Stratus only'],
    reason:
      "region is only set for a private address; the reference's own example is null otherwise",
  },
  {
    ops: ['createManagedService'],
    details: ['request region: nullable in Stratus only'],
    reason: 'null (no region) for a public address, as the answer shows it',
  },
  {
    ops: ['updateManagedService'],
    details: ['request ManagedService.region: nullable in Stratus only'],
    reason: 'null removes the region (the address became public)',
  },
  {
    ops: ['getManagedStats'],
    details: [
      'response StatsData.y: type number in Stratus, integer in reference',
      'response data: type array|object in Stratus, object in reference',
    ],
    reason:
      "y is an average with decimals (the reference's own example is 29.94); data is the reference's StatsDataUnavailable array of messages until graphs exist",
  },
  // Parent and child accounts, agreements (later revisions, as recorded).
  {
    ops: ['getProfileGrants', 'getUserGrants', 'updateUserGrants'],
    details: ['response GrantsResponse.global: field child_account_access only in Stratus'],
    reason:
      'later revisions: a restricted user of a parent account needs it to use the child accounts',
  },
  {
    ops: ['updateUserGrants'],
    details: ['request GrantsResponse.global: field child_account_access only in Stratus'],
    reason: 'set like every other global grant',
  },
  {
    ops: ['getChildAccounts'],
    details: ['GET /account/child-accounts: not in reference'],
    reason: 'parent and child accounts (later revisions; the recorded wire)',
  },
  {
    ops: ['getChildAccount'],
    details: ['GET /account/child-accounts/{euuid}: not in reference'],
    reason: 'parent and child accounts (later revisions; the recorded wire)',
  },
  {
    ops: ['postChildAccountToken'],
    details: ['POST /account/child-accounts/{euuid}/token: not in reference'],
    reason: 'parent and child accounts (later revisions; the recorded wire)',
  },
  {
    ops: ['getAccountAgreements'],
    details: ['GET /account/agreements: not in reference'],
    reason: 'the agreements an account acknowledged (later revisions; the recorded wire)',
  },
  {
    ops: ['acknowledgeAccountAgreement'],
    details: ['POST /account/agreements: not in reference'],
    reason: 'acknowledging them (later revisions; the SDKs send it)',
  },
];

const reference = JSON.parse(
  readFileSync(new URL('../../fixtures/reference/openapi.json', import.meta.url), 'utf8'),
) as OpenApiDoc;
const fidelity = readFileSync(new URL('../../../docs/fidelity.md', import.meta.url), 'utf8');

// The document is built once, at collection time, so that every operation it publishes gets its
// own test: operations added later are covered without touching this file.
const t = await buildTestApp();
const generated = await t.get<OpenApiDoc>('/v4/openapi.json', { token: null });
const { operations, differences: all } = compareOpenApi(generated.body, reference);
// Response fields, nulls and types beyond the reference that the real wire shows for the same
// operation (test/fixtures/reference/real-wire.json) are the service as it is now: allowed by that
// evidence rather than listed one by one (docs/fidelity.md, "The real wire").
// The comparison names a difference by the reference's schema (`response Compute: field locks`):
// what the wire shows for a schema in one operation holds for the same schema in the others
// (getRegion shows what getRegions recorded).
const opPaths = operationPaths(generated.body);
const backed = new Set(all.filter((d) => wireBacked(d, opPaths)).map((d) => d.detail));
const differences = all.filter((d) => !backed.has(d.detail));
const { unexpected } = auditDifferences(differences, ALLOWED);
const { stale } = auditDifferences(all, ALLOWED);
const unexpectedFor = (op: string) =>
  unexpected.filter((d) => d.startsWith(`${op} `)).map((d) => d.slice(op.length + 1));

afterAll(async () => {
  await t.close();
});

describe('openapi: generated document against the reference', () => {
  it('getOpenApi: serves the generated document', () => {
    expect(generated.status).toBe(200);
    expect(operations.length).toBeGreaterThan(0);
  });

  it('getOpenApi: publishes only /v4 operations, each once', () => {
    expect(unexpectedFor('(document)')).toEqual([]);
    expect(new Set(operations).size).toBe(operations.length);
  });

  for (const op of [...new Set(operations)].sort()) {
    it(`${op}: matches the reference (operationId, parameters, bodies, 200, scopes)`, () => {
      expect(unexpectedFor(op)).toEqual([]);
    });
  }

  it('getOpenApi: every allow-listed difference still exists', () => {
    expect(stale).toEqual([]);
  });

  it('getOpenApi: every allow-listed difference is written in docs/fidelity.md', () => {
    const missing = ALLOWED.flatMap((a) => a.details).filter((d) => !fidelity.includes(`\`${d}\``));
    expect(missing).toEqual([]);
  });
});

/** The comparison itself, on small documents: each rule fails when it is broken. */
describe('openapi-compare: the comparison', () => {
  const doc = (paths: Record<string, unknown>, schemas: Record<string, unknown> = {}) =>
    ({ paths, components: { schemas } }) as OpenApiDoc;
  const op = (extra: Record<string, unknown>) => ({
    operationId: 'getThing',
    responses: { 200: { content: { 'application/json': { schema: { type: 'object' } } } } },
    ...extra,
  });
  const ok = (schema: unknown) => ({
    responses: { 200: { content: { 'application/json': { schema } } } },
  });
  const details = (ours: OpenApiDoc, ref: OpenApiDoc): string[] =>
    compareOpenApi(ours, ref).differences.map((d: Difference) => d.detail);

  it('compareOpenApi: resolves $ref and allOf, and treats anyOf [T, null] like nullable', () => {
    const ref = doc(
      {
        '/things': {
          get: op(
            ok({
              allOf: [
                { $ref: '#/components/schemas/Env' },
                {
                  properties: {
                    data: { type: 'array', items: { $ref: '#/components/schemas/T' } },
                  },
                },
              ],
            }),
          ),
        },
      },
      {
        Env: { type: 'object', properties: { page: { type: 'integer' } } },
        T: { type: 'object', properties: { a: { type: 'string', nullable: true } } },
      },
    );
    const same = doc({
      '/things': {
        get: op(
          ok({
            type: 'object',
            properties: {
              page: { type: 'integer' },
              data: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: { a: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
                },
              },
            },
          }),
        ),
      },
    });
    expect(details(same, ref)).toEqual([]);
    const broken = structuredClone(same) as any;
    broken.paths['/things'].get.responses['200'].content[
      'application/json'
    ].schema.properties.data.items.properties.a = { type: 'integer' };
    expect(details(broken, ref)).toEqual([
      'response T.a: type integer in Stratus, string in reference',
      'response T.a: nullable in reference only',
    ]);
  });

  it('compareOpenApi: leaves readOnly fields out of request bodies and compares required', () => {
    const body = (schema: unknown) => ({
      requestBody: { content: { 'application/json': { schema } } },
    });
    const ref = doc(
      { '/things': { post: op(body({ $ref: '#/components/schemas/T' })) } },
      {
        T: {
          type: 'object',
          required: ['label'],
          properties: { id: { type: 'integer', readOnly: true }, label: { type: 'string' } },
        },
      },
    );
    const ours = (required: string[]) =>
      doc({
        '/things': {
          post: op(body({ type: 'object', required, properties: { label: { type: 'string' } } })),
        },
      });
    expect(details(ours(['label']), ref)).toEqual([]);
    expect(details(ours([]), ref)).toEqual([
      'request T: required [] in Stratus, [label] in reference',
    ]);
  });

  it('compareOpenApi: compares parameters, operationId, scopes and missing fields', () => {
    const ref = doc({
      '/things/{thingId}': {
        parameters: [{ name: 'thingId', in: 'path', required: true, schema: { type: 'integer' } }],
        get: op({
          security: [{ personalAccessToken: [] }, { oauth: ['things:read_only'] }],
          ...ok({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } } }),
        }),
      },
    });
    const ours = doc({
      '/things/{id}': {
        get: op({
          operationId: 'thingView',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          ...ok({ type: 'object', properties: { a: { type: 'string' }, c: { type: 'string' } } }),
        }),
      },
      'beta/things': { get: op({}) },
    });
    expect(details(ours, ref).sort()).toEqual(
      [
        'operationId: thingView in Stratus, getThing in reference',
        'path thingId: only in reference',
        'path id: only in Stratus',
        'response (body): field b only in reference',
        'response (body): field c only in Stratus',
        'security: public in Stratus, oauth [things:read_only] in reference',
        'path beta/things: must not be published',
        'GET beta/things: not in reference',
      ].sort(),
    );
  });

  it('auditDifferences: reports differences not listed and listed ones that are gone', () => {
    const diffs: Difference[] = [{ op: 'getA', detail: 'x: y' }];
    const r = auditDifferences(diffs, [{ ops: ['getB'], details: ['x: y'], reason: 'r' }]);
    expect(r.unexpected).toEqual(['getA x: y']);
    expect(r.stale).toEqual(['getB x: y']);
    expect(differenceText(diffs[0] as Difference)).toBe('getA x: y');
  });
});
