"""One budget of Document AI online requests per project, shared by every worker (design §3a: 600 a minute by
default, Google's quota). A generic cell rate algorithm in one Redis script: each request takes the next slot
`60 / rate` seconds after the last one, with a burst of a tenth of the rate allowed at once, so a 200-page
document's 14 shards all start together while a minute never holds more than the rate."""

from __future__ import annotations

import time
from collections.abc import Callable

import redis

from worker.redis_state import parse_rate_key

# KEYS[1]: the project's theoretical arrival time (ms). ARGV: now (ms), interval (ms), burst tolerance (ms).
# Returns 0 when the request may go now, else how many ms to wait before asking again.
_GCRA = """
local tat = tonumber(redis.call('get', KEYS[1]) or '0')
local now, interval, tolerance = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
if tat < now then tat = now end
local allowed_at = tat - tolerance
if now < allowed_at then return math.max(1, math.ceil(allowed_at - now)) end
local new_tat = math.floor(tat + interval)
redis.call('set', KEYS[1], new_tat, 'px', math.ceil(new_tat - now + 1000))
return 0
"""


class RateLimiter:
    def __init__(
        self,
        client: redis.Redis,
        project: str,
        per_minute: int,
        *,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
    ):
        self.key = parse_rate_key(project)
        self.interval_ms = 60_000 / per_minute
        self.tolerance_ms = self.interval_ms * max(per_minute // 10 - 1, 0)
        self.script = client.register_script(_GCRA)
        self.clock = clock
        self.sleep = sleep

    def wait(self) -> float:
        """Block until this request fits in the budget; returns the seconds waited."""
        waited = 0.0
        while True:
            now_ms = self.clock() * 1000
            delay_ms = float(self.script(keys=[self.key], args=[int(now_ms), self.interval_ms, self.tolerance_ms]))
            if delay_ms <= 0:
                return waited
            self.sleep(delay_ms / 1000)
            waited += delay_ms / 1000
