"""User CPU seconds of one run of each benchmark case named (cclab.bench.CASES), in this process:

    python benches/user_time.py B2 B1
"""
import resource, sys
import cclab
from cclab.bench import CASES
for key in sys.argv[1:]:
    u0 = resource.getrusage(resource.RUSAGE_SELF).ru_utime
    r = cclab.run(CASES[key].scenario)
    u1 = resource.getrusage(resource.RUSAGE_SELF).ru_utime
    print(f"{key} user {u1 - u0:.3f} s, {int(r.flows['delivered_pkts'].sum())} pkts")
