/** See postgres-server.mjs. */
export function postgresBinaries(): string | undefined;
export function startPostgresServer(options: {
  prefix: string;
  fsync: boolean;
}): Promise<{ url: string; restart(): Promise<void>; stop(): Promise<void> }>;
