#!/usr/bin/env python3
"""What-if (no verdict reads it): the one-load-a-thread model (core/streaming/model.hpp,
predict_block_stream) re-solved in Python with and without a block waiting for its slowest warp:
the delay Lambda(BW) plus the expected excess of the slowest of w = block_threads / 32 latency
samples (loaded_latency_max_excess_w{2..32}_cycles of the locus points, interpolated in BW and in
log2 w). Usage: slowest_warp.py WARPCOST_CSV RUN_ID_SUBSTRING BENCH_JSON (the CSV of
warpcost-analyze over a results folder holding that run). docs/models.md quotes its output."""
import sys
import json
import math

import numpy as np
import pandas as pd

d=pd.read_csv(sys.argv[1],low_memory=False)
f=1.98e9; S=132  # the SM clock both GPUs ran at (every run's machine state), and their SMs
def mva(n,D,Z):
  q=0
  for k in range(1,n+1):
    R=D*(1+q); X=k/(R+Z); q=X*R
  return n/X
for run,path in [(sys.argv[2], sys.argv[3])]:
  b=json.load(open(path))['benchmarks']
  loc=[]
  for x in b:
    if x['name'].startswith('streaming/read_independent/load_bytes:16/alu_per_load:0/') and 'loaded_latency_max_excess_w2_cycles' in x:
      n=int(x['name'].split('warps_per_sm:')[1].split('/')[0])
      loc.append((n,x))
  s=d[d.run_id.str.contains(run)&(d.benchmark=='read_independent')&(d.load_bytes==16)&(d.alu_per_load==0)&(d.metric=='dram__bytes_read.sum.per_second')]
  bwof={int(r.warps_per_sm):r.value for _,r in s.iterrows()}
  pts=sorted([(bwof[n], S*n*512*f/bwof[n], [x['loaded_latency_max_excess_w%d_cycles'%w] for w in (2,4,8,16,32)]) for n,x in loc if n in bwof])
  xs=np.array([p[0] for p in pts]); ys=np.maximum.accumulate(np.array([p[1] for p in pts])); ex=np.array([p[2] for p in pts])
  lam=lambda bw: np.interp(bw,xs,ys)
  def X(bw,w):
    if w<2: return 0.0
    col=[np.interp(bw,xs,ex[:,i]) for i in range(5)]
    return float(np.interp(math.log2(w),[1,2,3,4,5],col))
  one=d[d.run_id.str.contains(run)&(d.benchmark=='read_one_per_thread')]
  tv=d[d.run_id.str.contains(run)&(d.metric=='block_turnover_cycles')].set_index('block_threads').value
  print(run)
  for T in sorted(one.block_threads.dropna().unique()):
    o=one[one.block_threads==T]
    meas=o[o.metric=='second_order_bandwidth'].value.iloc[0]; pred=o[o.metric=='second_order_bandwidth'].predicted.iloc[0]
    rw=o[o.metric=='resident_warps_per_sm'].value.iloc[0]; w=int(T//32); k=int(round(rw/w)); D=tv[T]
    def solve(extra):
      def offered(bw): return S*f*T*16/(mva(k,D,lam(bw)+(X(bw,w) if extra else 0))/k)
      lo,hi=0,xs[-1]
      if offered(hi)>=hi: return hi
      for _ in range(100):
        mid=(lo+hi)/2
        if offered(mid)>mid: lo=mid
        else: hi=mid
      return (lo+hi)/2
    p0=solve(False); p1=solve(True)
    print(int(T),k,'meas %.3f off %.3f mine %.3f (%+.1f%%) slowest %.3f (%+.1f%%)'%(meas/1e12,pred/1e12,p0/1e12,100*(meas/p0-1),p1/1e12,100*(meas/p1-1)))
