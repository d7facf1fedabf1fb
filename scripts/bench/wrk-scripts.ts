/**
 * The Lua scripts wrk runs. Every script ends with a done() that prints one
 * line `WRK_JSON {...}` (requests, errors, latency percentiles, and the status
 * counts and sample bodies the threads collected), so the benchmark parses
 * JSON rather than wrk's human-readable summary.
 *
 * Only the create script defines response(): wrk reads every response body
 * into Lua when a script has one, which would slow the GET targets (and the
 * raw baselines they are compared with) for nothing; GETs rely on wrk's own
 * count of non-2xx/3xx responses instead.
 */

/** A Lua string literal of `s` (Lua 5.1 has no \u escapes: bytes outside printable ASCII become \ddd). */
export function luaString(s: string): string {
  let out = '"';
  for (const b of Buffer.from(s, 'utf8')) {
    if (b === 0x22) out += '\\"';
    else if (b === 0x5c) out += '\\\\';
    else if (b >= 0x20 && b < 0x7f) out += String.fromCharCode(b);
    else out += `\\${b}`;
  }
  return `${out}"`;
}

function luaHeaders(headers: Record<string, string>): string {
  return `{ ${Object.entries(headers).map(([k, v]) => `[${luaString(k)}] = ${luaString(v)}`).join(', ')} }`;
}

/** setup() numbers the threads (thread-local global `tid`); done() sums what they collected and prints the JSON line. */
const COMMON = `
local threads = {}
function setup(thread)
  thread:set("tid", #threads + 1)
  table.insert(threads, thread)
end

-- Counts a response's status in the thread's \`statuses\` and keeps the thread's first body of a status other than \`expect\`; true when it was \`expect\`.
local function countStatus(status, body, expect)
  local k = tostring(status)
  statuses[k] = (statuses[k] or 0) + 1
  if status == expect then return true end
  if sample == nil then sample = k .. ": " .. string.sub(body or "", 1, 300) end
  return false
end

local function esc(s)
  return (string.gsub(s, '[%c"\\\\\\128-\\255]', function(c) return string.format("\\\\u%04x", string.byte(c)) end))
end

function done(summary, latency, requests)
  local statuses, samples = {}, {}
  for _, t in ipairs(threads) do
    local s = t:get("statuses")
    if s then for k, v in pairs(s) do statuses[k] = (statuses[k] or 0) + v end end
    local b = t:get("sample")
    if b then table.insert(samples, '"' .. esc(b) .. '"') end
  end
  local st = {}
  for k, v in pairs(statuses) do table.insert(st, string.format('"%s":%d', esc(k), v)) end
  local walks, bad = {}, 0
  for _, t in ipairs(threads) do
    local w = t:get("walks")
    if w then for _, ms in ipairs(w) do table.insert(walks, string.format("%.3f", ms)) end end
    bad = bad + (t:get("badWalks") or 0)
  end
  local e = summary.errors
  local p = function(q) return latency:percentile(q) end
  io.write(string.format(
    '\\nWRK_JSON {"requests":%d,"durationUs":%d,"bytes":%.0f,"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
    '"latencyUs":{"min":%d,"mean":%.1f,"max":%d,"p50":%d,"p90":%d,"p99":%d,"p999":%d},"statuses":{%s},"samples":[%s],"walks":[%s],"badWalks":%d}\\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency.min, latency.mean, latency.max, p(50), p(90), p(99), p(99.9), table.concat(st, ","), table.concat(samples, ","),
    table.concat(walks, ","), bad))
end
`;

/** GET of one path. */
export function getScript(headers: Record<string, string>): string {
  return `${COMMON}
wrk.method = "GET"
for k, v in pairs(${luaHeaders(headers)}) do wrk.headers[k] = v end
`;
}

/**
 * GET of a random object among `count` created by the scale loader: object i
 * is `names(i)` in namespace `namespace(i % namespaces)`, here through
 * string.format patterns with %d placeholders (namespace index, then i).
 */
export function randomGetScript(headers: Record<string, string>, pathFormat: string, count: number, namespaces: number): string {
  return `${COMMON}
local headers = ${luaHeaders(headers)}
function init(args)
  math.randomseed(tid * 7919 + os.time())
end
function request()
  local i = math.random(0, ${count - 1})
  return wrk.format("GET", string.format(${luaString(pathFormat)}, i % ${namespaces}, i), headers)
end
`;
}

/**
 * POST of a body with a unique name each: `${namePrefix}${tid}-${counter}`,
 * spliced between `bodyBefore` and `bodyAfter`. Counts statuses and keeps one
 * sample body per thread of a status other than `expect`.
 */
export function createScript(path: string, headers: Record<string, string>, bodyBefore: string, bodyAfter: string, namePrefix: string, expect: number): string {
  return `${COMMON}
local path, headers = ${luaString(path)}, ${luaHeaders(headers)}
local before, after, prefix = ${luaString(bodyBefore)}, ${luaString(bodyAfter)}, ${luaString(namePrefix)}
local counter = 0
function init(args)
  statuses = {}
end
function request()
  counter = counter + 1
  return wrk.format("POST", path, headers, before .. prefix .. tid .. "-" .. counter .. after)
end
function response(status, headers, body)
  countStatus(status, body, ${expect})
end
`;
}

/**
 * Paged LIST walks, one connection per thread (wrk's callbacks are per thread,
 * so a thread of one connection can carry that connection's continue token):
 * each thread asks for `path` with the limit, follows the continue token page
 * after page, and starts over after a page without one. A walk's time is the
 * sum of its page times (LuaJIT's ffi reads CLOCK_MONOTONIC around each page);
 * it counts when it ran whole within the run and returned `listSize` items
 * (counted by their uids), and is bad when a page was not 200 or the count
 * differs. wrk's own latency figures are the pages'.
 */
export function pagedWalkScript(headers: Record<string, string>, path: string, listSize: number): string {
  return `${COMMON}
local ffi = require("ffi")
ffi.cdef[[
typedef struct { long tv_sec; long tv_nsec; } orch_bench_timespec;
int clock_gettime(int clock, orch_bench_timespec *tp);
]]
local ts = ffi.new("orch_bench_timespec")
local function nowMs()
  ffi.C.clock_gettime(1, ts)
  return tonumber(ts.tv_sec) * 1000 + tonumber(ts.tv_nsec) / 1e6
end
local headers, base, listSize = ${luaHeaders(headers)}, ${luaString(path)}, ${listSize}
local cont, sentAt, walkMs, items = nil, 0, 0, 0
function init(args)
  walks = {}
  badWalks = 0
  statuses = {}
end
function request()
  sentAt = nowMs()
  local p = base
  if cont then p = p .. "&continue=" .. cont end
  return wrk.format("GET", p, headers)
end
function response(status, hdrs, body)
  if not countStatus(status, body, 200) then
    badWalks = badWalks + 1
    cont, walkMs, items = nil, 0, 0
    return
  end
  walkMs = walkMs + (nowMs() - sentAt)
  local at = string.find(body, '"uid":"', 1, true)
  while at do
    items = items + 1
    at = string.find(body, '"uid":"', at + 7, true)
  end
  cont = string.match(string.sub(body, 1, 4096), '"metadata":{[^}]-"continue":"([^"]+)"')
  if cont == nil then
    if items == listSize then table.insert(walks, walkMs)
    else
      badWalks = badWalks + 1
      if sample == nil then sample = "a walk returned " .. items .. " items, expected " .. listSize end
    end
    walkMs, items = 0, 0
  end
end
`;
}
