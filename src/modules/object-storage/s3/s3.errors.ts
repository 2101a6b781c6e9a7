/** An S3 error: answered as `<Error><Code>…</Code><Message>…</Message></Error>` with its status. */
export class S3Error extends Error {
  override name = 'S3Error';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const s3errors = {
  accessDenied: () => new S3Error(403, 'AccessDenied', 'Access Denied'),
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
  invalidRange: () => new S3Error(416, 'InvalidRange', 'The requested range is not satisfiable'),
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
  notImplemented: () =>
    new S3Error(
      501,
      'NotImplemented',
      'A header you provided implies functionality that is not implemented.',
    ),
  methodNotAllowed: () =>
    new S3Error(
      405,
      'MethodNotAllowed',
      'The specified method is not allowed against this resource.',
    ),
  preconditionFailed: () =>
    new S3Error(
      412,
      'PreconditionFailed',
      'At least one of the pre-conditions you specified did not hold',
    ),
};
