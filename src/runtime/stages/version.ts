/**
 * The API version (API.md §7): from the path, `X-API-Version` or `options.version` (two of them that
 * differ are a conflict), else the key's pinned version, else the latest stable. Deprecated versions are
 * served with Deprecation (RFC 9745), Sunset (RFC 8594) and a Link to the changelog.
 */
import { platform } from '../../../generated/server/platform.js';
import { header, type CallState } from '../call.js';
import { ApiError } from '../errors.js';

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const versions = new Map(platform.versions.map((v) => [v.date, v]));
const supported = platform.versions.filter((v) => v.status !== 'retired').map((v) => v.date);

/** Headers for each deprecated version, computed once. */
const deprecationHeaders = new Map(
  platform.versions
    .filter((v) => v.status === 'deprecated')
    .map((v) => [
      v.date,
      {
        Deprecation: `@${Date.parse(v.deprecatedAt!) / 1000}`,
        Sunset: new Date(v.sunset!).toUTCString(),
        Link: `<${platform.changelogUrl}#${v.date}>; rel="deprecation"`,
      },
    ]),
);

export function version(call: CallState): void {
  const given = [
    { source: 'path', value: call.pathVersion, param: undefined },
    { source: 'X-API-Version', value: header(call, 'x-api-version'), param: undefined },
    { source: 'options.version', value: call.envelope.options.version, param: '/options/version' },
  ].filter((g): g is { source: string; value: string; param: string | undefined } => g.value !== undefined);
  for (const g of given) {
    // The round trip refuses dates that Date.parse would roll over, such as 2025-02-30.
    if (!DATE.test(g.value) || Number.isNaN(Date.parse(g.value)) || new Date(g.value).toISOString().slice(0, 10) !== g.value) {
      throw new ApiError('api_version_invalid', `${g.source} "${g.value}" is not a YYYY-MM-DD date.`, g.param ? { param: g.param } : {});
    }
  }
  const distinct = [...new Set(given.map((g) => g.value))];
  if (distinct.length > 1) {
    throw new ApiError('api_version_conflict', `The request names several versions: ${given.map((g) => `${g.source} ${g.value}`).join(', ')}.`, {
      details: { given: Object.fromEntries(given.map((g) => [g.source, g.value])) },
    });
  }
  const date = distinct[0] ?? call.key!.apiVersion ?? platform.latest;
  const entry = versions.get(date);
  if (!entry) throw new ApiError('api_version_unknown', `No API version was released on ${date}.`, { details: { supported } });
  if (entry.status === 'retired') throw new ApiError('api_version_retired', `API version ${date} is retired.`, { details: { supported } });
  call.apiVersion = date;
  call.responseHeaders['X-API-Version'] = date;
  Object.assign(call.responseHeaders, deprecationHeaders.get(date));
}
