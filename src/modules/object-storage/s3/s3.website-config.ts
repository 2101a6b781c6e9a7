import { s3errors } from './s3.errors.js';
import { rootOf, text } from './s3.xml.js';

/** A routing rule of a website configuration. */
export interface RoutingRule {
  condition?: { keyPrefixEquals?: string; httpErrorCodeReturnedEquals?: string };
  redirect: {
    hostName?: string;
    protocol?: string;
    replaceKeyPrefixWith?: string;
    replaceKeyWith?: string;
    httpRedirectCode?: string;
  };
}

/** A bucket's website configuration, as PutBucketWebsite stores it. */
export interface WebsiteConfig {
  indexSuffix?: string;
  errorKey?: string;
  redirectAll?: { hostName: string; protocol?: string };
  rules?: RoutingRule[];
}

interface WebsiteXml {
  IndexDocument?: { Suffix?: unknown };
  ErrorDocument?: { Key?: unknown };
  RedirectAllRequestsTo?: { HostName?: unknown; Protocol?: unknown };
  RoutingRules?: { RoutingRule?: RuleXml[] } | string;
}

interface RuleXml {
  Condition?: { KeyPrefixEquals?: unknown; HttpErrorCodeReturnedEquals?: unknown };
  Redirect?: {
    HostName?: unknown;
    Protocol?: unknown;
    ReplaceKeyPrefixWith?: unknown;
    ReplaceKeyWith?: unknown;
    HttpRedirectCode?: unknown;
  };
}

const invalid = (message: string) => s3errors.invalidArgument(message);

function protocol(v: unknown): string | undefined {
  const p = text(v);
  if (p !== undefined && p !== 'http' && p !== 'https')
    throw invalid('Invalid protocol, protocol can be http or https.');
  return p;
}

/**
 * Parses a WebsiteConfiguration document as S3 checks it: an index document (a suffix without
 * `/`) unless every request is redirected (which excludes the rest); routing rules with a
 * redirect each, `ReplaceKeyPrefixWith` and `ReplaceKeyWith` not both, 3XX codes.
 */
export function parseWebsite(body: string): WebsiteConfig {
  const doc = rootOf<WebsiteXml>(body, 'WebsiteConfiguration');
  const out: WebsiteConfig = {};
  if (doc.RedirectAllRequestsTo !== undefined) {
    if (doc.IndexDocument || doc.ErrorDocument || doc.RoutingRules)
      throw invalid(
        'RedirectAllRequestsTo cannot be provided in conjunction with other Routing Rules.',
      );
    const host = text(doc.RedirectAllRequestsTo.HostName);
    if (!host) throw invalid('A host name must be provided.');
    const p = protocol(doc.RedirectAllRequestsTo.Protocol);
    out.redirectAll = { hostName: host, ...(p ? { protocol: p } : {}) };
    return out;
  }
  const suffix = text(doc.IndexDocument?.Suffix);
  if (suffix === undefined || suffix === '')
    throw invalid(
      'A value for IndexDocument Suffix must be provided if RedirectAllRequestsTo is empty',
    );
  if (suffix.includes('/')) throw invalid('The IndexDocument Suffix is not well formed');
  out.indexSuffix = suffix;
  const errorKey = text(doc.ErrorDocument?.Key);
  if (doc.ErrorDocument !== undefined) {
    if (!errorKey) throw invalid('The ErrorDocument Key is not well formed');
    out.errorKey = errorKey;
  }
  const rules = typeof doc.RoutingRules === 'object' ? (doc.RoutingRules.RoutingRule ?? []) : [];
  if (rules.length > 50) throw invalid('Too many routing rules (at most 50).');
  if (rules.length > 0) {
    out.rules = rules.map((r) => {
      if (!r.Redirect) throw s3errors.malformedXml();
      const rd = r.Redirect;
      const prefixWith = text(rd.ReplaceKeyPrefixWith);
      const keyWith = text(rd.ReplaceKeyWith);
      if (prefixWith !== undefined && keyWith !== undefined)
        throw invalid('You can only define ReplaceKeyPrefix or ReplaceKey but not both.');
      const code = text(rd.HttpRedirectCode);
      if (code !== undefined && !/^3\d\d$/.test(code))
        throw invalid(
          'The provided HTTP redirect code is not valid. It should be a string containing a number.',
        );
      const p = protocol(rd.Protocol);
      const host = text(rd.HostName);
      const cond = r.Condition;
      const errCode = text(cond?.HttpErrorCodeReturnedEquals);
      if (errCode !== undefined && !/^[45]\d\d$/.test(errCode))
        throw invalid('The provided HTTP error code is not valid. Valid codes are 4XX or 5XX.');
      const keyPrefix = text(cond?.KeyPrefixEquals);
      const rule: RoutingRule = {
        redirect: {
          ...(host ? { hostName: host } : {}),
          ...(p ? { protocol: p } : {}),
          ...(prefixWith !== undefined ? { replaceKeyPrefixWith: prefixWith } : {}),
          ...(keyWith !== undefined ? { replaceKeyWith: keyWith } : {}),
          ...(code ? { httpRedirectCode: code } : {}),
        },
      };
      if (cond)
        rule.condition = {
          ...(keyPrefix !== undefined ? { keyPrefixEquals: keyPrefix } : {}),
          ...(errCode !== undefined ? { httpErrorCodeReturnedEquals: errCode } : {}),
        };
      return rule;
    });
  }
  return out;
}

/** The WebsiteConfiguration document of a configuration. */
export function websiteDocument(w: WebsiteConfig) {
  if (w.redirectAll)
    return {
      RedirectAllRequestsTo: {
        HostName: w.redirectAll.hostName,
        ...(w.redirectAll.protocol ? { Protocol: w.redirectAll.protocol } : {}),
      },
    };
  return {
    IndexDocument: { Suffix: w.indexSuffix },
    ...(w.errorKey ? { ErrorDocument: { Key: w.errorKey } } : {}),
    ...(w.rules
      ? {
          RoutingRules: {
            RoutingRule: w.rules.map((r) => ({
              ...(r.condition
                ? {
                    Condition: {
                      ...(r.condition.keyPrefixEquals !== undefined
                        ? { KeyPrefixEquals: r.condition.keyPrefixEquals }
                        : {}),
                      ...(r.condition.httpErrorCodeReturnedEquals !== undefined
                        ? { HttpErrorCodeReturnedEquals: r.condition.httpErrorCodeReturnedEquals }
                        : {}),
                    },
                  }
                : {}),
              Redirect: {
                ...(r.redirect.hostName ? { HostName: r.redirect.hostName } : {}),
                ...(r.redirect.httpRedirectCode
                  ? { HttpRedirectCode: r.redirect.httpRedirectCode }
                  : {}),
                ...(r.redirect.protocol ? { Protocol: r.redirect.protocol } : {}),
                ...(r.redirect.replaceKeyPrefixWith !== undefined
                  ? { ReplaceKeyPrefixWith: r.redirect.replaceKeyPrefixWith }
                  : {}),
                ...(r.redirect.replaceKeyWith !== undefined
                  ? { ReplaceKeyWith: r.redirect.replaceKeyWith }
                  : {}),
              },
            })),
          },
        }
      : {}),
  };
}

/** The first routing rule that applies to a key (and the error code, once there is one). */
export function routingRule(
  w: WebsiteConfig,
  key: string,
  errorCode?: number,
): RoutingRule | undefined {
  return (w.rules ?? []).find((r) => {
    const c = r.condition;
    if (!c) return errorCode === undefined;
    if (c.keyPrefixEquals !== undefined && !key.startsWith(c.keyPrefixEquals)) return false;
    if (c.httpErrorCodeReturnedEquals !== undefined)
      return errorCode !== undefined && String(errorCode) === c.httpErrorCodeReturnedEquals;
    return errorCode === undefined;
  });
}

/**
 * Where a routing rule sends a request for `key`: to its host (and protocol), or within this
 * website (`siteBase`, e.g. `http://host/_stratus/s3-website/<cluster>/<bucket>`).
 */
export function redirectLocation(
  r: RoutingRule,
  key: string,
  siteBase: string,
  requestProtocol: string,
): { status: number; location: string } {
  const rd = r.redirect;
  let target = key;
  if (rd.replaceKeyWith !== undefined) target = rd.replaceKeyWith;
  else if (rd.replaceKeyPrefixWith !== undefined) {
    const prefix = r.condition?.keyPrefixEquals ?? '';
    target = rd.replaceKeyPrefixWith + key.slice(prefix.length);
  }
  const status = Number(rd.httpRedirectCode ?? '301');
  if (rd.hostName === undefined) {
    const base = rd.protocol ? siteBase.replace(/^https?:/, `${rd.protocol}:`) : siteBase;
    return { status, location: `${base}/${target}` };
  }
  return { status, location: `${rd.protocol ?? requestProtocol}://${rd.hostName}/${target}` };
}
