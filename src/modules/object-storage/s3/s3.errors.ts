/** An S3 error: answered as `<Error><Code>…</Code><Message>…</Message></Error>` with its status. */
export class S3Error extends Error {
  override name = 'S3Error';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Further elements of the error document (BucketName, Key, …). */
    readonly extra: Record<string, string> = {},
    /** Headers of the error response (x-amz-delete-marker, …). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const s3errors = {
  invalidUri: () => new S3Error(400, 'InvalidURI', "Couldn't parse the specified URI."),
  accessDenied: (message = 'Access Denied') => new S3Error(403, 'AccessDenied', message),
  signatureMismatch: () =>
    new S3Error(
      403,
      'SignatureDoesNotMatch',
      'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
    ),
  invalidAccessKey: () =>
    new S3Error(
      403,
      'InvalidAccessKeyId',
      'The AWS Access Key Id you provided does not exist in our records.',
    ),
  expired: () => new S3Error(403, 'AccessDenied', 'Request has expired'),
  skewed: () =>
    new S3Error(
      403,
      'RequestTimeTooSkewed',
      'The difference between the request time and the current time is too large.',
    ),
  noSuchBucket: (bucket: string) =>
    new S3Error(404, 'NoSuchBucket', 'The specified bucket does not exist', { BucketName: bucket }),
  noSuchKey: (key: string) =>
    new S3Error(404, 'NoSuchKey', 'The specified key does not exist.', { Key: key }),
  noSuchUpload: () =>
    new S3Error(
      404,
      'NoSuchUpload',
      'The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.',
    ),
  bucketNotEmpty: () =>
    new S3Error(409, 'BucketNotEmpty', 'The bucket you tried to delete is not empty'),
  bucketExists: () =>
    new S3Error(
      409,
      'BucketAlreadyExists',
      'The requested bucket name is not available. Please select a different name and try again.',
    ),
  bucketOwned: () =>
    new S3Error(
      409,
      'BucketAlreadyOwnedByYou',
      'Your previous request to create the named bucket succeeded and you already own it.',
    ),
  invalidBucketName: () =>
    new S3Error(400, 'InvalidBucketName', 'The specified bucket is not valid.'),
  badDigest: () =>
    new S3Error(400, 'BadDigest', 'The Content-MD5 you specified did not match what we received.'),
  sha256Mismatch: () =>
    new S3Error(
      400,
      'XAmzContentSHA256Mismatch',
      'The provided x-amz-content-sha256 header does not match what was computed.',
    ),
  invalidRange: (size?: number) =>
    new S3Error(
      416,
      'InvalidRange',
      'The requested range is not satisfiable',
      size !== undefined ? { ActualObjectSize: String(size) } : {},
    ),
  metadataTooLarge: () =>
    new S3Error(
      400,
      'MetadataTooLarge',
      'Your metadata headers exceed the maximum allowed metadata size',
    ),
  invalidArgument: (message: string) => new S3Error(400, 'InvalidArgument', message),
  invalidRequest: (message: string) => new S3Error(400, 'InvalidRequest', message),
  invalidPart: () =>
    new S3Error(
      400,
      'InvalidPart',
      "One or more of the specified parts could not be found. The part may not have been uploaded, or the specified entity tag may not match the part's entity tag.",
    ),
  invalidPartOrder: () =>
    new S3Error(400, 'InvalidPartOrder', 'The list of parts was not in ascending order.'),
  entityTooSmall: () =>
    new S3Error(
      400,
      'EntityTooSmall',
      'Your proposed upload is smaller than the minimum allowed object size.',
    ),
  entityTooLarge: () =>
    new S3Error(400, 'EntityTooLarge', 'Your proposed upload exceeds the maximum allowed size'),
  malformedXml: () =>
    new S3Error(
      400,
      'MalformedXML',
      'The XML you provided was not well-formed or did not validate against our published schema.',
    ),
  missingLength: () =>
    new S3Error(411, 'MissingContentLength', 'You must provide the Content-Length HTTP header.'),
  /** An S3 operation Stratus does not serve, named. */
  notImplemented: (operation: string) =>
    new S3Error(501, 'NotImplemented', `The ${operation} operation is not implemented.`),
  /** A header that asks for something Stratus does not do, named (never accepted and dropped). */
  headerNotImplemented: (header: string, what: string) =>
    new S3Error(
      501,
      'NotImplemented',
      `A header you provided implies functionality that is not implemented: ${header} (${what}).`,
      { Header: header },
    ),
  unresolvableEmail: () =>
    new S3Error(
      400,
      'UnresolvableGrantByEmailAddress',
      'The e-mail address you provided does not match any account on record.',
    ),
  malformedAcl: () =>
    new S3Error(
      400,
      'MalformedACLError',
      'The XML you provided was not well-formed or did not validate against our published schema.',
    ),
  malformedPolicy: (message: string) => new S3Error(400, 'MalformedPolicy', message),
  noSuchVersion: (key: string, versionId: string) =>
    new S3Error(404, 'NoSuchVersion', 'The specified version does not exist.', {
      Key: key,
      VersionId: versionId,
    }),
  noSuchConfig: (code: string, message: string, bucket: string) =>
    new S3Error(404, code, message, { BucketName: bucket }),
  invalidBucketState: (message: string) => new S3Error(409, 'InvalidBucketState', message),
  invalidRetentionPeriod: (message: string) => new S3Error(400, 'InvalidRetentionPeriod', message),
  invalidTag: (message: string) => new S3Error(400, 'InvalidTag', message),
  authorizationHeaderMalformed: (region: string, expected: string) =>
    new S3Error(
      400,
      'AuthorizationHeaderMalformed',
      `The authorization header is malformed; the region '${region}' is wrong; expecting '${expected}'`,
      { Region: expected },
    ),
  authorizationHeaderMalformedText: (message: string) =>
    new S3Error(400, 'AuthorizationHeaderMalformed', message),
  authorizationQueryParametersError: (message: string) =>
    new S3Error(400, 'AuthorizationQueryParametersError', message),
  invalidStorageClass: () =>
    new S3Error(400, 'InvalidStorageClass', 'The storage class you specified is not valid'),
  noSuchWebsite: () =>
    new S3Error(
      404,
      'NoSuchWebsiteConfiguration',
      'The specified bucket does not have a website configuration',
    ),
  tooManyBuckets: () =>
    new S3Error(400, 'TooManyBuckets', 'You have attempted to create more buckets than allowed'),
  methodNotAllowed: () =>
    new S3Error(
      405,
      'MethodNotAllowed',
      'The specified method is not allowed against this resource.',
    ),
  malformedPostRequest: () =>
    new S3Error(
      400,
      'MalformedPOSTRequest',
      'The body of your POST request is not well-formed multipart/form-data.',
    ),
  invalidPolicyDocument: (message: string) => new S3Error(400, 'InvalidPolicyDocument', message),
  invalidDigest: () =>
    new S3Error(400, 'InvalidDigest', 'The Content-MD5 you specified was invalid.'),
  badRequest: (message: string) => new S3Error(400, 'BadRequest', message),
  invalidObjectState: (message: string) => new S3Error(403, 'InvalidObjectState', message),
  notModified: () => new S3Error(304, 'NotModified', 'Not Modified'),
  preconditionFailed: () =>
    new S3Error(
      412,
      'PreconditionFailed',
      'At least one of the pre-conditions you specified did not hold',
    ),
};
