/**
 * URLs as they may be written down (request logs, trace attributes): the values of credential-like
 * query parameters replaced. One rule for both, below every room that writes a URL anywhere.
 */
/**
 * Query parameters that may carry a credential (an API key sent as `?access_token=`, a signed URL's
 * token...): their values are replaced in every URL that is logged. Matched case-insensitively,
 * also as the end of a longer name (`x_api_key`, `refreshToken`).
 */
const CREDENTIAL_PARAM =
  /(access_token|api_?key|apikey|key|token|secret|password|passwd|pwd|auth|authorization|signature|sig|code|session)$/i;
export const REDACTED = '[REDACTED]';

/** The URL with the values of credential-like query parameters replaced by `[REDACTED]`. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q === -1) return url;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const rawName = eq === -1 ? pair : pair.slice(0, eq);
      let name: string;
      try {
        name = decodeURIComponent(rawName.replace(/\+/g, ' '));
      } catch {
        name = rawName;
      }
      return CREDENTIAL_PARAM.test(name) && eq !== -1 ? `${rawName}=${REDACTED}` : pair;
    })
    .join('&');
  return `${url.slice(0, q)}?${query}`;
}
