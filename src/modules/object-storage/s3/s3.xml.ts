import { XMLBuilder, XMLParser } from 'fast-xml-parser';

const NS = 'http://s3.amazonaws.com/doc/2006-03-01/';
const XSI = 'http://www.w3.org/2001/XMLSchema-instance';

const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  suppressEmptyNode: false,
  processEntities: true,
});

const parser = new XMLParser({
  ignoreAttributes: true,
  parseTagValue: false,
  trimValues: true,
  isArray: (name) => ['Part', 'Object', 'CORSRule', 'Grant'].includes(name),
});

/** An S3 XML document with the root element `root` in the S3 namespace. */
export function xml(root: string, body: Record<string, unknown>, namespaced = true): string {
  const content = namespaced ? { '@_xmlns': NS, ...body } : body;
  return `<?xml version="1.0" encoding="UTF-8"?>\n${builder.build({ [root]: content })}`;
}

export function parseXml(text: string): Record<string, unknown> {
  return parser.parse(text) as Record<string, unknown>;
}

/** The grants S3 shows for a canned ACL, as an AccessControlPolicy document. */
export function aclDocument(acl: string, ownerId: string): string {
  const owner = { ID: ownerId, DisplayName: ownerId };
  const group = (uri: string) => ({ '@_xmlns:xsi': XSI, '@_xsi:type': 'Group', URI: uri });
  const all = group('http://acs.amazonaws.com/groups/global/AllUsers');
  const grants: unknown[] = [
    {
      Grantee: { '@_xmlns:xsi': XSI, '@_xsi:type': 'CanonicalUser', ...owner },
      Permission: 'FULL_CONTROL',
    },
  ];
  if (acl === 'public-read' || acl === 'public-read-write')
    grants.push({ Grantee: all, Permission: 'READ' });
  if (acl === 'public-read-write') grants.push({ Grantee: all, Permission: 'WRITE' });
  if (acl === 'authenticated-read') {
    grants.push({
      Grantee: group('http://acs.amazonaws.com/groups/global/AuthenticatedUsers'),
      Permission: 'READ',
    });
  }
  return xml('AccessControlPolicy', { Owner: owner, AccessControlList: { Grant: grants } });
}

export function errorDocument(
  code: string,
  message: string,
  resource: string,
  requestId: string,
  extra: Record<string, string>,
): string {
  return xml(
    'Error',
    { Code: code, Message: message, ...extra, Resource: resource, RequestId: requestId },
    false,
  );
}
