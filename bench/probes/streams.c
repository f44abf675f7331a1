/*
 * streams.c - probe: the host cost of small backend calls (4 KiB copy_h2d,
 * event_record) issued round-robin over 1, 2 and 4 streams, back to back
 * while the device works, as the workloads issue them, against each call
 * timed alone after a sync, as calibrate times it (BENCHMARKS.md,
 * "Simulator fidelity", seventh session).  Through the HIP backend's HAL
 * ops.  Not built by make; from the build directory:
 *   cc -O2 -std=gnu11 -I../.. -I../../include -I. -o streams \
 *     ../../bench/probes/streams.c .libs/libhipcore.so -Wl,-rpath,$PWD/.libs
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "hal/hal.h"
static uint64_t now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1000000000ull+t.tv_nsec;}
static int cmp(const void*a,const void*b){uint64_t x=*(const uint64_t*)a,y=*(const uint64_t*)b;return x<y?-1:x>y;}
#define N 4000
static uint64_t smp[N];
static double med(int n){qsort(smp,n,sizeof(*smp),cmp);return smp[n/2];}
int main(void){
 const struct hc_hal_ops*o=hc_hal_find("hip"); struct hc_hal_open_args a={0}; hc_hal_dev*d; hc_hal_stream*s[4]; hc_hal_dptr dp; void*h;
 if(!o||o->device_open(&a,&d)){puts("no device");return 2;}
 for(int i=0;i<4;i++)o->stream_create(d,&s[i]); o->mem_alloc(d,1<<20,&dp); o->host_alloc(d,1<<20,&h); memset(h,1,1<<20);
 for(int round=0;round<3;round++){
  for(int S=1;S<=4;S*=2){
   /* copies back to back, 4 KiB, sync all streams every 64 calls */
   for(int i=0;i<N;i++){uint64_t t0=now();o->copy_h2d(d,s[i%S],dp+(i%64)*4096,(char*)h+(i%64)*4096,4096,true);smp[i]=now()-t0;
     if(i%64==63)for(int k=0;k<S;k++)o->stream_sync(d,s[k]);}
   double cp=med(N);
   for(int i=0;i<N;i++){hc_hal_event*e;uint64_t t0=now();o->event_record(d,s[i%S],&e);smp[i]=now()-t0;o->event_destroy(d,e);
     if(i%64==63)for(int k=0;k<S;k++)o->stream_sync(d,s[k]);}
   double er=med(N);
   /* mixed: copy + event record + query, round robin */
   for(int i=0;i<N;i++){hc_hal_event*e;bool done;uint64_t t0=now();o->copy_h2d(d,s[i%S],dp,(char*)h,65536,true);o->event_record(d,s[i%S],&e);o->event_query(d,e,&done);smp[i]=now()-t0;o->event_destroy(d,e);
     if(i%16==15)for(int k=0;k<S;k++)o->stream_sync(d,s[k]);}
   double mx=med(N);
   printf("round %d streams %d: copy_h2d %.0f ns, event_record %.0f ns, copy+record+query %.0f ns\n",round,S,cp,er,mx);
  }
  /* alone: each copy after a sync of its stream */
  for(int i=0;i<400;i++){o->stream_sync(d,s[0]);uint64_t t0=now();o->copy_h2d(d,s[0],dp,h,4096,true);smp[i]=now()-t0;}
  double al=med(400);
  for(int i=0;i<400;i++){hc_hal_event*e;o->stream_sync(d,s[0]);uint64_t t0=now();o->event_record(d,s[0],&e);smp[i]=now()-t0;o->event_destroy(d,e);}
  printf("round %d alone (synced before each): copy_h2d %.0f ns, event_record %.0f ns\n",round,al,med(400));
 }
 return 0;}
