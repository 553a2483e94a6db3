/** The part of dynalite 4 (untyped CommonJS) that the dev command and the tests use. */
declare module 'dynalite' {
  import type { Server } from 'node:http';

  interface DynaliteOptions {
    /** Milliseconds tables stay CREATING. @default 500 */
    createTableMs?: number;
    /** Milliseconds tables stay DELETING. @default 500 */
    deleteTableMs?: number;
    /** Milliseconds tables stay UPDATING. @default 500 */
    updateTableMs?: number;
    /** LevelDB directory; in memory when absent. */
    path?: string;
    verbose?: boolean;
    debug?: boolean;
  }

  function dynalite(options?: DynaliteOptions): Server;
  export default dynalite;
}
