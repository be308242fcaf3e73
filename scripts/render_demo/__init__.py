"""The demo's report (scripts/render-demo.py), by kind of experiment:
common (run directory, gnuplot, readers, claims), pcap (capture readers),
timing (bursts, spacing), sharing (fairness, new flows, an unresponsive
flow), flowtable (gc, memory) and loss (random loss, a policer, GRO, a
chunked sender, a shallow queue)."""
