/**
 * The API version (docs/contract.md § Versions): from the path, `X-API-Version` or `options.version` (two of them that
 * differ are a conflict), else the key's pinned version, else the version in force today (a version takes
 * effect on its date; one dated later is served to whoever names it). Deprecated versions are
 * served with Deprecation (RFC 9745), Sunset (RFC 8594) and a Link to the changelog.
 */
import { assertParsed, header, invariant } from '../call.js';
import type { Stage } from '../stage.js';
import type { ApiVersion, PlatformData } from '../../core/dispatch-types.js';
import { ApiError } from '../../core/errors.js';

const DATE = /^\d{4}-\d{2}-\d{2}$/;

interface VersionTable {
  versions: ReadonlyMap<string, ApiVersion>;
  supported: string[];
  /** The headers of each deprecated version, made once. */
  deprecation: ReadonlyMap<string, Record<string, string>>;
}

const tables = new WeakMap<PlatformData, VersionTable>();

function versionTable(platform: PlatformData): VersionTable {
  let table = tables.get(platform);
  if (!table) {
    const deprecated = platform.versions.filter((v) => v.status === 'deprecated');
    table = {
      versions: new Map(platform.versions.map((v) => [v.date, v])),
      supported: platform.versions.filter((v) => v.status !== 'retired').map((v) => v.date),
      deprecation: new Map(
        deprecated.map((v) => [
          v.date,
          {
            Deprecation: `@${Date.parse(v.deprecatedAt!) / 1000}`,
            Sunset: new Date(v.sunset!).toUTCString(),
            Link: `<${platform.changelogUrl}#${v.date}>; rel="deprecation"`,
          },
        ]),
      ),
    };
    tables.set(platform, table);
  }
  return table;
}

export const version: Stage = (call, runtime) => {
  assertParsed(call);
  invariant(call.key, 'the key is known');
  const { platform } = runtime.catalogue;
  const table = versionTable(platform);
  const fromHeader = header(call, 'x-api-version');
  const fromOptions = call.envelope.options.version;
  const named = call.pathVersion === undefined && fromHeader === undefined && fromOptions === undefined ? undefined : namedVersion(call.pathVersion, fromHeader, fromOptions);
  const date = named ?? call.key.apiVersion ?? runtime.defaultVersion();
  const entry = table.versions.get(date);
  const supported = table.supported;
  if (!entry) throw new ApiError('api_version_unknown', `No API version was released on ${date}.`, { details: { supported } });
  if (entry.status === 'retired') throw new ApiError('api_version_retired', `API version ${date} is retired.`, { details: { supported } });
  call.apiVersion = date;
  call.responseHeaders['X-API-Version'] = date;
  const deprecation = table.deprecation.get(date);
  if (deprecation) Object.assign(call.responseHeaders, deprecation);
};

/** The one version the request names in its path, header and options; refuses malformed and conflicting ones. */
function namedVersion(path: string | undefined, fromHeader: string | undefined, fromOptions: string | undefined): string | undefined {
  const given = [
    { source: 'path', value: path, param: undefined },
    { source: 'X-API-Version', value: fromHeader, param: undefined },
    { source: 'options.version', value: fromOptions, param: '/options/version' },
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
  return distinct[0];
}
