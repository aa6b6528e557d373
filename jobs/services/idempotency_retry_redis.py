#!/usr/bin/env python3
"""A daily payment claimed by an idempotency key in Redis whose claim's answer is lost (issue
20), with Debian's python3-redis: SET idem:DATE token NX PX ttl sets the key, and the harness's
fault proxy drops the answer (docs/services.md, `net:NAME:set_nx`). redis-py raises
ConnectionError; the job reconnects and claims again, up to three times. The second SET NX finds
the key there: set by the first, whose answer never came.

  idempotency_retry_redis.py naive      buggy: a key already there means another run claimed the
                                        date, so it does not pay. Nobody pays, and the key (TTL
                                        ten minutes) keeps every retry of the date from paying.
  idempotency_retry_redis.py own-token  correct: the token is chosen once, before the first try;
                                        a key that holds it is this run's own claim, and it pays.
"""
import os
import sys
import time
import uuid

import redis

TTL_MS = 600000  # longer than any retry


def main():
    own_token = sys.argv[1] == "own-token"
    day = os.environ["KILLPOINT_BIZ_DATE"]
    key, token = f"idem:{day}", str(uuid.uuid4())
    for attempt in range(1, 4):
        try:
            r = redis.Redis.from_url(os.environ["REDIS_URL"])
            claimed = r.set(key, token, nx=True, px=TTL_MS)  # the fault proxy may drop the answer
            if not claimed and own_token:
                claimed = r.get(key) == token.encode()  # our own claim, its answer lost
            if not claimed:
                return 0  # claimed by another run: paid, or being paid
            r.set(f"paid:{day}:{token}", 1)  # the payment
            return 0
        except redis.ConnectionError as e:
            sys.stderr.write(f"idempotency_retry_redis.py: try {attempt}: {e}\n")
            time.sleep(0.05)
    return 1


if __name__ == "__main__":
    sys.exit(main())
