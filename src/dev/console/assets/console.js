// The dev console's page: plain browser JS, no framework and no build step. It reads the dev loop's
// console API (docs/console-api.md) on the same origin: the live state over server-sent events, the
// rest as JSON over HTTP. Message content is only ever set as text (textContent), never as HTML.
import {
  apiErrorMessage,
  bodyPreview,
  describeBody,
  describeEnd,
  describeHealth,
  describeResponse,
  formatCount,
  formatDuration,
  formatLag,
  formatTime,
  INVOCATION_FILTERS,
  invocationFilters,
  isoTime,
  OUTCOMES,
  parseEvent,
  parseRoute,
  routeHash,
  sendRequest,
  summaryMatches,
  totalLag,
} from './console-format.js';

/** Rows the invocations list asks for. */
const LIST_LIMIT = 100;
/** Dead letters one browse asks for. */
const DLQ_LIMIT = 100;

const $ = (id) => {
  const found = document.getElementById(id);
  if (found === null) throw new Error(`the page has no #${id}`);
  return found;
};

/**
 * An element with attributes and children: strings become text nodes (never HTML). An attribute of
 * `undefined` or `false` is left out; `true` sets it empty.
 */
function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false || value === null) continue;
    node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** A `<time>` of a timestamp, shown as local HH:MM:SS.mmm. */
const timeEl = (value) => el('time', { datetime: isoTime(value), title: isoTime(value) }, formatTime(value));
/** An outcome badge: its word is the label, its class only colours it. */
const badge = (outcome) => el('span', { class: `badge badge-${outcome}` }, outcome);
const messageLink = (messageId) =>
  el('a', { href: routeHash('message', messageId), class: 'mono' }, messageId);
const invocationLink = (id, text = id) => el('a', { href: routeHash('invocation', id), class: 'mono' }, text);

/** Says `text` to screen readers (the polite live region). */
function announce(text) {
  const region = $('announce');
  region.textContent = '';
  // A new node each time: the same text twice is announced twice.
  setTimeout(() => {
    region.textContent = text;
  }, 50);
}

/** Shows an error message (or clears it with undefined) in a `role=alert` container. */
function showError(id, error) {
  $(id).textContent = error === undefined ? '' : error instanceof Error ? error.message : String(error);
}

/** JSON from the console API; an answer other than 2xx rejects with the server's `error` message. */
async function api(path, options = {}) {
  const init = { ...options, headers: { accept: 'application/json' } };
  if (options.json !== undefined) {
    init.method = options.method ?? 'POST';
    init.body = JSON.stringify(options.json);
    init.headers['content-type'] = 'application/json';
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    throw new Error(
      `the dev loop does not answer (${error instanceof Error ? error.message : String(error)}); is it still running?`,
    );
  }
  let body = null;
  try {
    body = await response.json();
  } catch {
    // Not JSON: the status says what happened.
  }
  if (!response.ok) throw new Error(apiErrorMessage(response.status, response.statusText, body));
  return body;
}

// ---------------------------------------------------------------------------------------------------
// Live state (server-sent events)

/** The latest /api/state. */
let state = { startedAt: undefined, mappings: [] };
/** Mapping cards by mapping id, updated in place so focus and reading position survive the updates. */
const cards = new Map();
/** Last health seen per mapping, to announce changes only. */
const lastHealth = new Map();

function connect() {
  const connection = $('connection');
  const events = new EventSource('/api/events');
  events.addEventListener('open', () => {
    connection.textContent = 'Live';
    connection.dataset.state = 'live';
  });
  events.addEventListener('error', () => {
    connection.textContent = 'Disconnected from the dev loop: reconnecting…';
    connection.dataset.state = 'down';
  });
  events.addEventListener('state', (event) => applyState(JSON.parse(event.data)));
  events.addEventListener('invocation', (event) => onLiveInvocation(JSON.parse(event.data)));
}

function applyState(next) {
  state = next;
  renderMappings();
  fillMappingChoices();
}

function renderMappings() {
  $('mappings-since').textContent =
    state.startedAt === undefined ? '' : `Dev loop started at ${formatTime(state.startedAt)}.`;
  $('mappings-empty').hidden = state.mappings.length > 0;
  const container = $('mappings');
  const seen = new Set();
  for (const mapping of state.mappings) {
    seen.add(mapping.id);
    let card = cards.get(mapping.id);
    if (card === undefined) {
      card = mappingCard(mapping);
      cards.set(mapping.id, card);
      container.append(card.root);
    }
    card.update(mapping);
    const health = describeHealth(mapping.health);
    const before = lastHealth.get(mapping.id);
    if (before !== undefined && before !== health) announce(`${mapping.functionName}: ${health}`);
    lastHealth.set(mapping.id, health);
  }
  for (const [id, card] of cards) {
    if (!seen.has(id)) {
      card.root.remove();
      cards.delete(id);
    }
  }
}

/** One mapping's card: built once, then `update` sets its values. */
function mappingCard(mapping) {
  const value = () => el('dd');
  const fields = {
    state: value(),
    topic: value(),
    group: value(),
    mode: value(),
    lag: value(),
    inFlightBatches: value(),
    retries: value(),
    deadLetters: value(),
    filteredOut: value(),
    invocations: value(),
  };
  const labels = {
    state: 'State',
    topic: 'Topic',
    group: 'Consumer group',
    mode: 'Mode',
    lag: 'Lag',
    inFlightBatches: 'In-flight batches',
    retries: 'Retries',
    deadLetters: 'Dead letters',
    filteredOut: 'Filtered out',
    invocations: 'Invocations',
  };
  const health = el('p', { class: 'health' });
  const queues = el('tbody');
  const headingId = `mapping-${mapping.id.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  const root = el(
    'article',
    { class: 'card', 'aria-labelledby': headingId, 'data-mapping': mapping.id },
    el(
      'h3',
      { id: headingId },
      mapping.functionName,
      mapping.functionName === mapping.id ? '' : el('span', { class: 'muted' }, ` (${mapping.id})`),
    ),
    health,
    el(
      'dl',
      { class: 'facts' },
      Object.entries(fields).map(([name, dd]) => {
        dd.dataset.field = name;
        return el('div', {}, el('dt', {}, labels[name]), dd);
      }),
    ),
    el(
      'table',
      { class: 'grid queues' },
      el('caption', {}, 'Queues'),
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          el('th', { scope: 'col' }, 'Topic'),
          el('th', { scope: 'col' }, 'Broker'),
          el('th', { scope: 'col' }, 'Queue'),
          el('th', { scope: 'col' }, 'Lag'),
          el('th', { scope: 'col' }, 'In flight'),
        ),
      ),
      queues,
    ),
    el(
      'p',
      { class: 'links' },
      el(
        'a',
        { href: routeHash('invocations', undefined, { mapping: mapping.id }) },
        `Invocations of ${mapping.functionName}`,
      ),
      ' · ',
      el(
        'a',
        { href: routeHash('dead-letters', undefined, { group: mapping.group }) },
        `Dead letters of ${mapping.group}`,
      ),
      ' · ',
      el('a', { href: routeHash('filtered', undefined, { mapping: mapping.id }) }, `Messages filtered out`),
    ),
  );
  return {
    root,
    update(m) {
      const healthText = describeHealth(m.health);
      health.textContent = healthText;
      health.dataset.healthy = String(m.health?.healthy === true);
      fields.state.textContent = m.state ?? '–';
      fields.topic.textContent = m.topic;
      fields.group.textContent = m.group;
      fields.mode.textContent = m.filters ? `${m.mode}, with filter criteria` : m.mode;
      fields.lag.textContent = formatLag(totalLag(m.queues));
      fields.inFlightBatches.textContent = String(m.inFlightBatches);
      fields.retries.textContent = String(m.retries);
      fields.deadLetters.textContent = String(m.deadLetters);
      fields.filteredOut.textContent = String(m.filteredOut);
      fields.invocations.textContent =
        m.invocationsDropped > 0
          ? `${m.invocations} (${m.invocationsDropped} oldest dropped)`
          : String(m.invocations);
      queues.replaceChildren(
        ...(m.queues ?? []).map((q) =>
          el(
            'tr',
            {},
            el('td', {}, q.topic ?? m.topic),
            el('td', {}, q.broker),
            el('td', {}, q.queueId),
            el('td', {}, formatLag(q.lag)),
            el('td', {}, q.inFlight),
          ),
        ),
      );
      if ((m.queues ?? []).length === 0)
        queues.append(el('tr', {}, el('td', { colspan: 5 }, 'No queues held yet')));
    },
  };
}

/** The mapping filter's and the dead-letter group's choices, and the send form's topics. */
function fillMappingChoices() {
  const mappingSelect = $('filter-mapping');
  const wanted = state.mappings.map((m) => m.id);
  const have = [...mappingSelect.options].slice(1).map((o) => o.value);
  if (wanted.join('\n') !== have.join('\n')) {
    const selected = mappingSelect.value;
    mappingSelect.replaceChildren(
      el('option', { value: '' }, 'any'),
      ...state.mappings.map((m) => el('option', { value: m.id }, `${m.functionName} (${m.topic})`)),
    );
    mappingSelect.value = selected;
  }
  const filteredSelect = $('filtered-mapping');
  if ([...filteredSelect.options].map((o) => o.value).join('\n') !== wanted.join('\n')) {
    const selected = filteredSelect.value || route.query.mapping;
    filteredSelect.replaceChildren(
      ...state.mappings.map((m) => el('option', { value: m.id }, m.functionName)),
    );
    if (selected) filteredSelect.value = selected;
  }
  const groupSelect = $('dlq-group');
  const groups = [...new Set(state.mappings.map((m) => m.group))];
  const haveGroups = [...groupSelect.options].map((o) => o.value);
  if (groups.join('\n') !== haveGroups.join('\n')) {
    const selected = groupSelect.value || route.query.group;
    groupSelect.replaceChildren(...groups.map((g) => el('option', { value: g }, g)));
    if (selected) groupSelect.value = selected;
  }
  const topics = [...new Set(state.mappings.map((m) => m.topic))];
  const datalist = $('topics');
  if ([...datalist.options].map((o) => o.value).join('\n') !== topics.join('\n')) {
    datalist.replaceChildren(...topics.map((t) => el('option', { value: t })));
  }
}

// ---------------------------------------------------------------------------------------------------
// Invocations

/** Live invocations that may match the list's filters but were not added (they need a reload). */
let pendingLive = 0;
let listFilters = {};

function invocationRow(summary) {
  return el(
    'tr',
    { 'data-invocation': summary.id },
    el('td', {}, invocationLink(summary.id, formatTime(summary.startedAt))),
    el(
      'td',
      {},
      summary.functionName,
      summary.replayOf === undefined ? '' : el('span', { class: 'muted' }, ' (replay)'),
    ),
    el('td', {}, badge(summary.outcome)),
    el('td', {}, summary.recordCount),
    el('td', {}, formatDuration(summary.durationMs)),
    el(
      'td',
      { class: 'ids' },
      ...(summary.messageIds ?? []).slice(0, 3).flatMap((id) => [messageLink(id), ' ']),
      (summary.messageIds ?? []).length > 3 ? `+${summary.messageIds.length - 3} more` : '',
    ),
  );
}

async function showInvocations(query) {
  listFilters = invocationFilters(query);
  pendingLive = 0;
  $('invocations-live').replaceChildren();
  const form = $('invocation-filters');
  for (const name of INVOCATION_FILTERS) form.elements[name].value = listFilters[name] ?? '';
  showError('invocations-error');
  const search = new URLSearchParams({ ...listFilters, limit: String(LIST_LIMIT) });
  try {
    const { invocations } = await api(`/api/invocations?${search}`);
    $('invocations').replaceChildren(...invocations.map(invocationRow));
    $('invocations-empty').hidden = invocations.length > 0;
  } catch (error) {
    showError('invocations-error', error);
  }
}

function onLiveInvocation(summary) {
  if (route.view !== 'invocations') return;
  const body = $('invocations');
  // The same invocation again (a record dead-lettered after it settled): its row is updated in place.
  const existing = [...body.rows].find((row) => row.dataset.invocation === summary.id);
  if (existing !== undefined) {
    existing.replaceWith(invocationRow(summary));
    return;
  }
  const match = summaryMatches(summary, listFilters);
  if (match === 'yes') {
    body.prepend(invocationRow(summary));
    while (body.rows.length > LIST_LIMIT) body.lastElementChild?.remove();
    $('invocations-empty').hidden = true;
  } else if (match === 'unknown') {
    pendingLive += 1;
    const reload = el('button', { type: 'button' }, 'Reload the list');
    reload.addEventListener('click', () => showInvocations(route.query));
    $('invocations-live').replaceChildren(
      `${formatCount(pendingLive, 'new invocation')} may match these filters. `,
      reload,
    );
  }
}

function setUpInvocationFilters() {
  const form = $('invocation-filters');
  $('filter-outcome').append(...OUTCOMES.map((o) => el('option', { value: o }, o)));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const query = Object.fromEntries(INVOCATION_FILTERS.map((name) => [name, form.elements[name].value]));
    navigate(routeHash('invocations', undefined, query));
  });
  form.addEventListener('reset', () => setTimeout(() => navigate(routeHash('invocations')), 0));
}

/** The invocation the detail view shows. */
let shown;

async function showInvocation(id) {
  $('h-invocation').textContent = `Invocation ${id}`;
  showError('invocation-error');
  showError('replay-error');
  $('invocation').replaceChildren();
  $('replay-result').replaceChildren();
  $('replay-event-error').textContent = '';
  shown = undefined;
  try {
    shown = await api(`/api/invocations/${encodeURIComponent(id)}`);
  } catch (error) {
    showError('invocation-error', error);
    $('replay-event').value = '';
    return;
  }
  $('invocation').replaceChildren(invocationDetail(shown));
  $('replay-event').value = JSON.stringify(shown.event, null, 2);
  $('replay-event').removeAttribute('aria-invalid');
}

/** Label/value pairs as a `<dl>`. */
const facts = (pairs) =>
  el(
    'dl',
    { class: 'facts' },
    pairs
      .filter(([, v]) => v !== undefined)
      .map(([label, value]) => el('div', {}, el('dt', {}, label), el('dd', {}, value))),
  );

/** A `<pre>` of text under a heading-like label. */
const block = (label, text, extraClass = '') =>
  el(
    'figure',
    { class: `block ${extraClass}` },
    el('figcaption', {}, label),
    el('pre', { tabindex: 0 }, text),
  );

function invocationDetail(invocation) {
  const response = describeResponse(invocation.response);
  return el(
    'div',
    {},
    facts([
      ['Function', invocation.functionName],
      ['Mapping', invocation.mappingId],
      ['Started', timeEl(invocation.startedAt)],
      ['Duration', formatDuration(invocation.durationMs)],
      ['Outcome', badge(invocation.outcome)],
      ['Records', String(invocation.recordCount)],
      ['Replay of', invocation.replayOf === undefined ? undefined : invocationLink(invocation.replayOf)],
    ]),
    el('h3', {}, `Records (${invocation.records.length})`),
    el('ol', { class: 'records' }, invocation.records.map(recordItem)),
    el('h3', {}, 'Response'),
    block(response.label, response.text, `response response-${invocation.response?.kind ?? 'none'}`),
    el('h3', {}, 'Handler logs'),
    logList(invocation.logs, invocation.logsTruncated),
    el(
      'details',
      { class: 'event' },
      el('summary', {}, 'The event as the function received it'),
      el('pre', { tabindex: 0 }, JSON.stringify(invocation.event, null, 2)),
    ),
  );
}

function recordItem(record) {
  const body = describeBody(record.body);
  return el(
    'li',
    { class: 'record', 'data-message-id': record.messageId },
    el('p', { class: 'record-head' }, messageLink(record.messageId), ' ', badge(record.outcome)),
    facts([
      ['Topic', record.topic],
      ['Keys', record.keys?.length ? record.keys.join(', ') : '–'],
      ['Tags', record.tags ?? '–'],
      ['Queue', `${record.broker} / ${record.queueId} at offset ${record.queueOffset}`],
      ['Reconsume times', String(record.reconsumeTimes)],
    ]),
    block(`Body (${body.label})`, body.text, `body body-${record.body?.kind ?? 'unknown'}`),
  );
}

function logList(logs, truncated) {
  if (!logs || logs.length === 0)
    return el('p', { class: 'muted' }, 'The handler wrote no logs during this invocation.');
  return el(
    'div',
    {},
    el(
      'ol',
      { class: 'logs', tabindex: 0, 'aria-label': 'Handler logs' },
      logs.map((line) =>
        el(
          'li',
          { class: `log log-${line.level}` },
          timeEl(line.at),
          ' ',
          el('span', { class: 'level' }, line.level),
          ' ',
          el('span', { class: 'text' }, line.text),
        ),
      ),
    ),
    truncated
      ? el(
          'p',
          { class: 'muted' },
          'Truncated: the handler wrote more than the console keeps (200 lines / 64 KiB).',
        )
      : '',
  );
}

function setUpReplay() {
  const textarea = $('replay-event');
  const errorLine = $('replay-event-error');
  const check = () => {
    const parsed = parseEvent(textarea.value);
    errorLine.textContent = parsed.error ?? '';
    if (parsed.error === undefined) textarea.removeAttribute('aria-invalid');
    else textarea.setAttribute('aria-invalid', 'true');
    return parsed;
  };
  textarea.addEventListener('input', check);
  $('replay-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const parsed = check();
    if (parsed.error !== undefined) {
      textarea.focus();
      return;
    }
    replay(parsed.event);
  });
  $('replay-original').addEventListener('click', () => replay(undefined));
  $('replay-reset').addEventListener('click', () => {
    if (shown === undefined) return;
    textarea.value = JSON.stringify(shown.event, null, 2);
    check();
  });
}

async function replay(event) {
  if (shown === undefined) return;
  showError('replay-error');
  const result = $('replay-result');
  result.replaceChildren(el('p', { class: 'muted' }, 'Replaying…'));
  const buttons = [$('replay-edited'), $('replay-original')];
  for (const button of buttons) button.disabled = true;
  try {
    const { invocation } = await api(`/api/invocations/${encodeURIComponent(shown.id)}/replay`, {
      json: event === undefined ? {} : { event },
    });
    const response = describeResponse(invocation.response);
    result.replaceChildren(
      el(
        'h4',
        {},
        `Replayed (${event === undefined ? 'original event' : 'edited event'}): `,
        badge(invocation.outcome),
      ),
      facts([
        ['New invocation', invocationLink(invocation.id)],
        ['Duration', formatDuration(invocation.durationMs)],
        ['Records', invocation.records.map((r) => `${r.messageId}: ${r.outcome}`).join(', ')],
      ]),
      block(
        `Response (${response.label})`,
        response.text,
        `response response-${invocation.response?.kind ?? 'none'}`,
      ),
      el('h4', {}, 'Handler logs'),
      logList(invocation.logs, invocation.logsTruncated),
    );
    announce(`Replay finished: ${invocation.outcome}`);
  } catch (error) {
    result.replaceChildren();
    showError('replay-error', error);
  } finally {
    for (const button of buttons) button.disabled = false;
  }
}

// ---------------------------------------------------------------------------------------------------
// Send

function setUpSend() {
  const form = $('send-form');
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    showError('send-error');
    const fields = Object.fromEntries(
      ['topic', 'tags', 'keys', 'properties', 'body'].map((n) => [n, form.elements[n].value]),
    );
    const built = sendRequest(fields);
    if (built.error !== undefined) {
      showError('send-error', built.error);
      return;
    }
    const button = form.querySelector('button[type=submit]');
    button.disabled = true;
    try {
      const sent = await api('/api/send', { json: built.request });
      $('send-result').replaceChildren(
        el('h3', {}, 'Sent'),
        facts([
          ['Message id', messageLink(sent.messageId)],
          ['Queue', `${sent.broker} / ${sent.queueId} at offset ${sent.queueOffset}`],
          // Only when the broker's status is not SEND_OK (e.g. a slave not yet in sync).
          ['Broker status', sent.status],
        ]),
      );
      announce(`Sent message ${sent.messageId}`);
    } catch (error) {
      showError('send-error', error);
    } finally {
      button.disabled = false;
    }
  });
}

// ---------------------------------------------------------------------------------------------------
// Dead letters

function setUpDeadLetters() {
  $('dlq-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const all = $('dlq-all-stored').checked ? 'true' : undefined;
    navigate(routeHash('dead-letters', undefined, { group: $('dlq-group').value, all }));
  });
  const all = $('dlq-all');
  all.addEventListener('change', () => {
    for (const box of selectionBoxes()) box.checked = all.checked;
    updateRedriveButton();
  });
  $('dead-letters').addEventListener('change', updateRedriveButton);
  $('dlq-redrive-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const form = $('dlq-redrive-form');
    const group = form.dataset.group;
    const messageIds = selectionBoxes()
      .filter((b) => b.checked)
      .map((b) => b.value);
    if (group === undefined || messageIds.length === 0) return;
    showError('dlq-error');
    $('dlq-redrive').disabled = true;
    try {
      const { redriven, skipped } = await api('/api/dead-letters/redrive', { json: { group, messageIds } });
      $('dlq-result').replaceChildren(
        el('h3', {}, `Redriven ${formatCount(redriven.length, 'message')}`),
        el(
          'ul',
          { class: 'redriven' },
          redriven.map((r) => el('li', {}, messageLink(r.messageId), ' → ', messageLink(r.newMessageId))),
        ),
        skipped.length === 0 ? '' : el('h3', {}, `Skipped ${formatCount(skipped.length, 'message')}`),
        skipped.length === 0
          ? ''
          : el(
              'ul',
              {},
              skipped.map((s) => el('li', {}, messageLink(s.messageId), `: ${s.reason}`)),
            ),
      );
      announce(`Redriven ${formatCount(redriven.length, 'message')}, skipped ${skipped.length}`);
      await showDeadLetters(group, form.dataset.all === 'true', false);
    } catch (error) {
      showError('dlq-error', error);
      updateRedriveButton();
    }
  });
}

const selectionBoxes = () => [...$('dead-letters').querySelectorAll('input[type=checkbox]')];

function updateRedriveButton() {
  const selected = selectionBoxes().filter((b) => b.checked).length;
  const button = $('dlq-redrive');
  button.disabled = selected === 0;
  button.textContent =
    selected === 0 ? 'Redrive selected' : `Redrive ${formatCount(selected, 'selected message')}`;
}

async function showDeadLetters(group, all, clearResult = true) {
  showError('dlq-error');
  if (clearResult) $('dlq-result').replaceChildren();
  const form = $('dlq-redrive-form');
  if (group === undefined || group === '') {
    form.hidden = true;
    return;
  }
  if ($('dlq-group').value !== group) $('dlq-group').value = group;
  $('dlq-all-stored').checked = all;
  const query = { group, limit: String(DLQ_LIMIT), ...(all ? { all: 'true' } : {}) };
  try {
    const { messages } = await api(`/api/dead-letters?${new URLSearchParams(query)}`);
    form.dataset.group = group;
    form.dataset.all = String(all);
    $('dlq-caption').textContent = `${formatCount(messages.length, 'dead letter')} of ${group}`;
    $('dead-letters').replaceChildren(
      ...messages.map((m) =>
        el(
          'tr',
          { 'data-message-id': m.messageId },
          el(
            'td',
            {},
            el('input', { type: 'checkbox', value: m.messageId, 'aria-label': `Select ${m.messageId}` }),
          ),
          el('td', {}, messageLink(m.messageId)),
          el('td', {}, timeEl(m.storedAt)),
          el('td', {}, m.reconsumeTimes),
          el('td', {}, m.originTopic ?? '–'),
          el('td', {}, (m.keys ?? []).join(', ') || '–'),
          el('td', {}, m.tags ?? '–'),
          el('td', { class: 'mono' }, bodyPreview(m.body)),
        ),
      ),
    );
    $('dlq-all').checked = false;
    form.hidden = false;
    updateRedriveButton();
  } catch (error) {
    form.hidden = true;
    showError('dlq-error', error);
  }
}

// ---------------------------------------------------------------------------------------------------
// Messages filtered out (they have no invocation)

function setUpFiltered() {
  $('filtered-form').addEventListener('submit', (event) => {
    event.preventDefault();
    navigate(routeHash('filtered', undefined, { mapping: $('filtered-mapping').value }));
  });
}

async function showFiltered(mappingId) {
  showError('filtered-error');
  const table = $('filtered-table');
  if (mappingId === undefined || mappingId === '') {
    table.hidden = true;
    return;
  }
  if ($('filtered-mapping').value !== mappingId) $('filtered-mapping').value = mappingId;
  try {
    const query = new URLSearchParams({ mapping: mappingId, limit: String(LIST_LIMIT) });
    const { messages } = await api(`/api/filtered?${query}`);
    $('filtered-caption').textContent =
      `${formatCount(messages.length, 'message')} filtered out by ${mappingId}, newest first`;
    $('filtered').replaceChildren(
      ...messages.map((m) =>
        el(
          'tr',
          { 'data-message-id': m.messageId },
          el('td', {}, timeEl(m.at)),
          el('td', {}, messageLink(m.messageId)),
          el('td', {}, m.topic),
          el('td', {}, m.tags ?? '–'),
          el('td', {}, (m.keys ?? []).join(', ') || '–'),
          el('td', { class: 'mono' }, bodyPreview(m.body)),
        ),
      ),
    );
    table.hidden = false;
  } catch (error) {
    table.hidden = true;
    showError('filtered-error', error);
  }
}

// ---------------------------------------------------------------------------------------------------
// A message's way

function setUpMessage() {
  $('message-form').addEventListener('submit', (event) => {
    event.preventDefault();
    navigate(routeHash('message', $('message-id').value.trim()));
  });
}

async function showMessage(messageId) {
  showError('message-error');
  $('message').replaceChildren();
  $('message-id').value = messageId ?? '';
  if (messageId === undefined || messageId === '') return;
  try {
    const way = await api(`/api/messages/${encodeURIComponent(messageId)}`);
    $('message').replaceChildren(
      facts([
        ['Message id', el('span', { class: 'mono' }, way.messageId)],
        ['Ended as', el('span', { class: `ended ended-${way.endedAs}` }, describeEnd(way.endedAs))],
        ['Retries', String(way.retries)],
      ]),
      el('h3', {}, `Invocations that carried it (${way.invocations.length}, oldest first)`),
      way.invocations.length === 0
        ? el('p', { class: 'muted' }, 'None in memory.')
        : el(
            'ol',
            { class: 'way' },
            way.invocations.map((s) =>
              el(
                'li',
                {},
                invocationLink(s.id, formatTime(s.startedAt)),
                ` ${s.functionName} `,
                badge(s.outcome),
                ` ${formatDuration(s.durationMs)}`,
                s.replayOf === undefined ? '' : ' (replay)',
              ),
            ),
          ),
      el(
        'p',
        {},
        el(
          'a',
          { href: routeHash('invocations', undefined, { messageId: way.messageId }) },
          'These invocations in the list',
        ),
      ),
    );
  } catch (error) {
    showError('message-error', error);
  }
}

// ---------------------------------------------------------------------------------------------------
// Routing

let route = parseRoute('');

function navigate(hash) {
  if (location.hash === hash) render(true);
  else location.hash = hash;
}

function render(focus) {
  route = parseRoute(location.hash);
  for (const section of document.querySelectorAll('main > section'))
    section.hidden = section.dataset.view !== route.view;
  for (const link of document.querySelectorAll('nav a')) {
    if (link.dataset.view.split(' ').includes(route.view)) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  const heading = document.querySelector(`#view-${route.view} h2`);
  document.title = `${heading?.textContent ?? 'Console'} · rocketmq-lambda console`;
  if (focus) heading?.focus();
  switch (route.view) {
    case 'invocations':
      return showInvocations(route.query);
    case 'invocation':
      return showInvocation(route.id);
    case 'dead-letters':
      // Without a group in the address: the one the picker shows (the first mapping's, once known).
      return showDeadLetters(
        route.query.group ?? ($('dlq-group').value || undefined),
        route.query.all === 'true',
      );
    case 'filtered':
      return showFiltered(route.query.mapping ?? ($('filtered-mapping').value || undefined));
    case 'message':
      return showMessage(route.id);
    default:
      return undefined;
  }
}

async function start() {
  setUpInvocationFilters();
  setUpReplay();
  setUpSend();
  setUpDeadLetters();
  setUpFiltered();
  setUpMessage();
  window.addEventListener('hashchange', () => render(true));
  // The state first: the filters' and the group picker's choices come from it (a link may name one).
  try {
    applyState(await api('/api/state'));
  } catch (error) {
    $('connection').textContent = error instanceof Error ? error.message : String(error);
    $('connection').dataset.state = 'down';
  }
  render(false);
  connect();
}

start();
