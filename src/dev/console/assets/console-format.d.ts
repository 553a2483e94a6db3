// Types of console-format.js (plain browser JS, no build step) for its unit test,
// test/unit/dev/console-format.test.ts.

/** A record's or dead letter's body as the console API gives it. */
export type Body =
  | { kind: 'text'; text: string }
  | { kind: 'json'; json: unknown }
  | { kind: 'binary'; hex: string; bytes: number };

export interface Shown {
  label: string;
  text: string;
}

export interface Route {
  view: 'mappings' | 'invocations' | 'invocation' | 'send' | 'dead-letters' | 'filtered' | 'message';
  id?: string;
  query: Record<string, string>;
}

export interface InvocationFilters {
  mapping?: string;
  outcome?: string;
  messageId?: string;
  key?: string;
}

export interface SendRequest {
  topic: string;
  body: string;
  tags?: string;
  keys?: string[];
  properties?: Record<string, string>;
}

export const OUTCOMES: readonly string[];
export const INVOCATION_FILTERS: readonly string[];
export function describeBody(body: unknown): Shown;
export function hexDump(hex: string): string;
export function bodyPreview(body: unknown, max?: number): string;
export function describeResponse(response: unknown): Shown;
export function formatTime(value: unknown): string;
export function isoTime(value: unknown): string | undefined;
export function formatDuration(ms: unknown): string;
export function formatCount(n: number, noun: string): string;
export function formatLag(lag: number | null | undefined): string;
export function totalLag(queues: readonly { lag: number | null }[] | undefined): number | null;
export function describeHealth(health: { healthy: boolean; reason?: string } | undefined): string;
export function parseRoute(hash: string | undefined): Route;
export function routeHash(view: Route['view'], id?: string, query?: Record<string, unknown>): string;
export function queryString(query: Record<string, unknown> | undefined): string;
export function invocationFilters(query: Record<string, unknown> | undefined): InvocationFilters;
export function summaryMatches(
  summary: { mappingId: string; outcome: string; messageIds?: readonly string[] },
  filters: InvocationFilters,
): 'yes' | 'no' | 'unknown';
export function parseEvent(
  text: string,
): { event: Record<string, unknown>; error?: undefined } | { error: string };
export function parseKeys(text: string | undefined): string[];
export function parseProperties(
  text: string | undefined,
): { properties: Record<string, string>; error?: undefined } | { error: string };
export function sendRequest(fields: {
  topic?: string;
  tags?: string;
  keys?: string;
  properties?: string;
  body?: string;
}): { request: SendRequest; error?: undefined } | { error: string };
export function apiErrorMessage(status: number, statusText: string, body: unknown): string;
export function describeEnd(endedAs: string): string;
