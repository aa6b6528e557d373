#!/usr/bin/env python3
"""A daily payment guarded by an idempotency key in Redis (docs/catalogue.md), with Debian's
python3-redis: SET idem:DATE token NX PX ttl claims the date; a run that finds the key there
does not pay again. A key per payment, paid:DATE:TOKEN, is the effect. The TTL must outlast
every retry of the date: once the key has expired, a late retry claims the date again and pays
a second time.

  idempotency_redis.py TTL_MS   the key's TTL (the scenarios: 100 ms, shorter than a retry that
                                comes after a 300 ms stall; 600000 ms, longer than any retry)
"""
import os
import sys
import uuid

import redis

from kp_failpoint import failpoint


def main():
    ttl_ms = int(sys.argv[1])
    r = redis.Redis.from_url(os.environ["REDIS_URL"])
    day = os.environ["KILLPOINT_BIZ_DATE"]
    token = str(uuid.uuid4())
    if not r.set(f"idem:{day}", token, nx=True, px=ttl_ms):
        return 0  # claimed by an earlier run: paid, or being paid
    r.set(f"paid:{day}:{token}", 1)  # the payment
    failpoint("after_pay")  # paid; a crash here is retried
    return 0


if __name__ == "__main__":
    sys.exit(main())
