/**
 * Why `url` cannot be parsed when the fault is its port alone: `its port "99999" is no number from
 * 0 to 65535` (the WHATWG URL parser, which fetch and pg read a URL with, refuses a port that is
 * not decimal digits or is above 65535: url.spec.whatwg.org, "port state"); undefined when the
 * URL parses, or would not parse without its port either. The port is the text after the last
 * `:` of the authority (between `scheme://` and the first `/`, `?` or `#`, after any `user@`),
 * outside an IPv6 address's brackets. Shared by every URL a user gives: base URLs
 * (session/face-config.ts, a config file's through events/setting-words.ts), MCP servers' `url`
 * (tools/mcp/config.ts) and database URLs (llm/shown-values.ts `redactDatabaseUrl`).
 */
export function urlPortProblem(url: string): string | undefined {
  const parts = /^([a-z][a-z\d+.-]*:\/\/)([^/?#]*)(.*)$/is.exec(url);
  const [, scheme = "", authority = "", rest = ""] = parts ?? [];
  const port = /:([^:\]@]*)$/.exec(authority)?.[1];
  // An `@` after the authority: a user part holding `/`, `?` or `#` ended it early (`u:a#b@h`),
  // and what looks like a port is the user's name or password.
  if (parts === null || port === undefined || rest.includes("@") || URL.canParse(url)) {
    return undefined;
  }
  const withoutPort = `${scheme}${authority.slice(0, -port.length - 1)}${rest}`;
  return URL.canParse(withoutPort)
    ? `its port ${JSON.stringify(port)} is no number from 0 to 65535`
    : undefined;
}
