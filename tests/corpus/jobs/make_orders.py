#!/usr/bin/env python3
"""Setup for py_ntf_refund.py: orders.csv with 2 or 3 orders a day. Usage: make_orders.py DIR D1,D2,..."""
import csv
import os
import sys

with open(os.path.join(sys.argv[1], "orders.csv"), "w", newline="") as f:
    out = csv.writer(f)
    out.writerow(["order_id", "day", "cents"])
    for i, day in enumerate(sys.argv[2].split(",")):
        for n in range(2 + i % 2):
            out.writerow([f"A{day.replace('-', '')}{n}", day, 1000 + 250 * n])
