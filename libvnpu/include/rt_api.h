/*
 * The Ascend runtime (libruntime.so) calls libvnpu intercepts, with their documented signatures
 * (reference: CANN runtime headers mem.h, rts_mem.h, kernel.h, rts_kernel.h, rt_external_kernel.h,
 * context.h).
 * Structures the shim never looks into are incomplete types: only their pointers cross the call.
 *
 * VNPU_RUNTIME_HOOKS is the one table of intercepted calls. Each row is
 *   X(KIND, name, (parameters), (arguments), kind-specific parameter names...)
 * with KIND one of
 *   ALLOC  (out, size)    reserves size against the quota; out receives the pointer or handle
 *   FREE   (key)          credits what the pointer or handle key was charged
 *   QUERY  (free, total)  reports the quota as total and quota - used as free
 *   LAUNCH (stream)       waits for the container's AI Core time slice
 * The shim (src/hooks.c) and the fake runtime (fakes/runtime) are both generated from it.
 */
#ifndef VNPU_RT_API_H
#define VNPU_RT_API_H

#include <stddef.h>
#include <stdint.h>

typedef int32_t rtError_t;
typedef void *rtStream_t;
typedef void *rtModel_t;
typedef void *rtFuncHandle;
typedef void *rtArgsHandle;
typedef void *rtDrvMemHandle;
typedef uint32_t rtMemType_t;
typedef int32_t rtMemInfoType_t;
typedef int32_t rtMallocPolicy;
typedef int32_t rtMallocAdvise;
typedef struct rtMallocConfig rtMallocConfig_t;
typedef struct rtDrvMemProp rtDrvMemProp_t;
typedef struct rtSmDesc rtSmDesc_t;
typedef struct rtArgsEx rtArgsEx_t;
typedef struct rtAicpuArgsEx rtAicpuArgsEx_t;
typedef struct rtTaskCfgInfo rtTaskCfgInfo_t;
typedef struct rtKernelLaunchNames rtKernelLaunchNames_t;
typedef struct rtKernelLaunchCfg rtKernelLaunchCfg_t;
typedef struct rtPlaceHolderInfo rtPlaceHolderInfo_t;
typedef struct rtCpuKernelArgs rtCpuKernelArgs_t;
typedef struct rtFftsPlusTaskInfo rtFftsPlusTaskInfo_t;
typedef struct rtCmoTaskInfo rtCmoTaskInfo_t;
typedef struct rtBarrierTaskInfo rtBarrierTaskInfo_t;
typedef void *rtLaunchArgsHandle;
typedef int32_t rtCmoOpCode_t;

#define RT_ERROR_NONE 0
#define ACL_ERROR_RT_PARAM_INVALID 107000
#define ACL_ERROR_RT_FEATURE_NOT_SUPPORT 207000
#define ACL_ERROR_RT_MEMORY_ALLOCATION 207001
#define ACL_ERROR_RT_INTERNAL_ERROR 507000

#define VNPU_RUNTIME_HOOKS(X)                                                                      \
    X(ALLOC, rtMalloc, (void **devPtr, uint64_t size, rtMemType_t type, uint16_t moduleId),        \
      (devPtr, size, type, moduleId), devPtr, size)                                                \
    X(ALLOC, rtMallocCached, (void **devPtr, uint64_t size, rtMemType_t type, uint16_t moduleId),  \
      (devPtr, size, type, moduleId), devPtr, size)                                                \
    X(ALLOC, rtMallocPhysical,                                                                     \
      (rtDrvMemHandle * handle, size_t size, rtDrvMemProp_t * prop, uint64_t flags),               \
      (handle, size, prop, flags), handle, size)                                                   \
    X(ALLOC, rtsMalloc,                                                                            \
      (void **devPtr, uint64_t size, rtMallocPolicy policy, rtMallocAdvise advise,                 \
       rtMallocConfig_t *cfg),                                                                     \
      (devPtr, size, policy, advise, cfg), devPtr, size)                                           \
    X(ALLOC, rtDvppMalloc, (void **devPtr, uint64_t size, uint16_t moduleId),                      \
      (devPtr, size, moduleId), devPtr, size)                                                      \
    X(ALLOC, rtDvppMallocWithFlag,                                                                 \
      (void **devPtr, uint64_t size, uint32_t flag, uint16_t moduleId),                            \
      (devPtr, size, flag, moduleId), devPtr, size)                                                \
    X(ALLOC, rtMemAllocManaged, (void **ptr, uint64_t size, uint32_t flag, uint16_t moduleId),     \
      (ptr, size, flag, moduleId), ptr, size)                                                      \
    X(FREE, rtFree, (void *devPtr), (devPtr), devPtr)                                              \
    X(FREE, rtFreeWithDevSync, (void *devPtr), (devPtr), devPtr)                                   \
    X(FREE, rtDvppFree, (void *devPtr), (devPtr), devPtr)                                          \
    X(FREE, rtMemFreeManaged, (void *ptr), (ptr), ptr)                                             \
    X(FREE, rtFreePhysical, (rtDrvMemHandle handle), (handle), handle)                             \
    X(FREE, rtsFree, (void *devPtr), (devPtr), devPtr)                                             \
    X(QUERY, rtMemGetInfo, (size_t *freeSize, size_t *totalSize), (freeSize, totalSize),           \
      freeSize, totalSize)                                                                         \
    X(QUERY, rtMemGetInfoEx, (rtMemInfoType_t memInfoType, size_t *freeSize, size_t *totalSize),   \
      (memInfoType, freeSize, totalSize), freeSize, totalSize)                                     \
    X(QUERY, rtsMemGetInfo, (rtMemInfoType_t memInfoType, size_t *freeSize, size_t *totalSize),    \
      (memInfoType, freeSize, totalSize), freeSize, totalSize)                                     \
    X(LAUNCH, rtKernelLaunch,                                                                      \
      (const void *stubFunc, uint32_t numBlocks, void *args, uint32_t argsSize,                    \
       rtSmDesc_t *smDesc, rtStream_t stm),                                                        \
      (stubFunc, numBlocks, args, argsSize, smDesc, stm), stm)                                     \
    X(LAUNCH, rtKernelLaunchWithHandle,                                                            \
      (void *hdl, const uint64_t tilingKey, uint32_t numBlocks, rtArgsEx_t *argsInfo,              \
       rtSmDesc_t *smDesc, rtStream_t stm, const void *kernelInfo),                                \
      (hdl, tilingKey, numBlocks, argsInfo, smDesc, stm, kernelInfo), stm)                         \
    X(LAUNCH, rtKernelLaunchWithHandleV2,                                                          \
      (void *hdl, const uint64_t tilingKey, uint32_t numBlocks, rtArgsEx_t *argsInfo,              \
       rtSmDesc_t *smDesc, rtStream_t stm, const rtTaskCfgInfo_t *cfgInfo),                        \
      (hdl, tilingKey, numBlocks, argsInfo, smDesc, stm, cfgInfo), stm)                            \
    X(LAUNCH, rtKernelLaunchWithFlag,                                                              \
      (const void *stubFunc, uint32_t numBlocks, rtArgsEx_t *argsInfo, rtSmDesc_t *smDesc,         \
       rtStream_t stm, uint32_t flags),                                                            \
      (stubFunc, numBlocks, argsInfo, smDesc, stm, flags), stm)                                    \
    X(LAUNCH, rtKernelLaunchWithFlagV2,                                                            \
      (const void *stubFunc, uint32_t numBlocks, rtArgsEx_t *argsInfo, rtSmDesc_t *smDesc,         \
       rtStream_t stm, uint32_t flags, const rtTaskCfgInfo_t *cfgInfo),                            \
      (stubFunc, numBlocks, argsInfo, smDesc, stm, flags, cfgInfo), stm)                           \
    X(LAUNCH, rtKernelLaunchEx, (void *args, uint32_t argsSize, uint32_t flags, rtStream_t stm),   \
      (args, argsSize, flags, stm), stm)                                                           \
    X(LAUNCH, rtVectorCoreKernelLaunch,                                                            \
      (const void *stubFunc, uint32_t numBlocks, rtArgsEx_t *argsInfo, rtSmDesc_t *smDesc,         \
       rtStream_t stm, uint32_t flags, const rtTaskCfgInfo_t *cfgInfo),                            \
      (stubFunc, numBlocks, argsInfo, smDesc, stm, flags, cfgInfo), stm)                           \
    X(LAUNCH, rtLaunchKernelByFuncHandleV3,                                                        \
      (rtFuncHandle funcHandle, uint32_t numBlocks, const rtArgsEx_t *const argsInfo,              \
       rtStream_t stm, const rtTaskCfgInfo_t *const cfgInfo),                                      \
      (funcHandle, numBlocks, argsInfo, stm, cfgInfo), stm)                                        \
    X(LAUNCH, rtsLaunchKernelWithConfig,                                                           \
      (rtFuncHandle funcHandle, uint32_t numBlocks, rtStream_t stm, rtKernelLaunchCfg_t *cfg,      \
       rtArgsHandle argsHandle, void *reserve),                                                    \
      (funcHandle, numBlocks, stm, cfg, argsHandle, reserve), stm)                                 \
    X(LAUNCH, rtsLaunchKernelWithHostArgs,                                                         \
      (rtFuncHandle funcHandle, uint32_t numBlocks, rtStream_t stm, rtKernelLaunchCfg_t *cfg,      \
       void *hostArgs, uint32_t argsSize, rtPlaceHolderInfo_t *placeHolderArray,                   \
       uint32_t placeHolderNum),                                                                   \
      (funcHandle, numBlocks, stm, cfg, hostArgs, argsSize, placeHolderArray, placeHolderNum),     \
      stm)                                                                                         \
    X(LAUNCH, rtAicpuKernelLaunchWithFlag,                                                         \
      (const rtKernelLaunchNames_t *launchNames, uint32_t numBlocks, const rtArgsEx_t *argsInfo,   \
       rtSmDesc_t *smDesc, rtStream_t stm, uint32_t flags),                                        \
      (launchNames, numBlocks, argsInfo, smDesc, stm, flags), stm)                                 \
    X(LAUNCH, rtAicpuKernelLaunchExWithArgs,                                                       \
      (const uint32_t kernelType, const char *const opName, const uint32_t numBlocks,              \
       const rtAicpuArgsEx_t *argsInfo, rtSmDesc_t *const smDesc, const rtStream_t stm,            \
       const uint32_t flags),                                                                      \
      (kernelType, opName, numBlocks, argsInfo, smDesc, stm, flags), stm)                          \
    X(LAUNCH, rtCpuKernelLaunchWithFlag,                                                           \
      (const void *soName, const void *kernelName, uint32_t numBlocks, const rtArgsEx_t *argsInfo, \
       rtSmDesc_t *smDesc, rtStream_t stm, uint32_t flags),                                        \
      (soName, kernelName, numBlocks, argsInfo, smDesc, stm, flags), stm)                          \
    X(LAUNCH, rtsLaunchCpuKernel,                                                                  \
      (const rtFuncHandle funcHandle, uint32_t numBlocks, rtStream_t stm,                          \
       const rtKernelLaunchCfg_t *cfg, rtCpuKernelArgs_t *argsInfo),                               \
      (funcHandle, numBlocks, stm, cfg, argsInfo), stm)                                            \
    X(LAUNCH, rtModelExecute, (rtModel_t mdl, rtStream_t stm, uint32_t flag), (mdl, stm, flag),    \
      stm)                                                                                         \
    X(LAUNCH, rtFftsPlusTaskLaunch, (rtFftsPlusTaskInfo_t * fftsPlusTaskInfo, rtStream_t stm),     \
      (fftsPlusTaskInfo, stm), stm)                                                                \
    X(LAUNCH, rtFftsPlusTaskLaunchWithFlag,                                                        \
      (rtFftsPlusTaskInfo_t * fftsPlusTaskInfo, rtStream_t stm, uint32_t flag),                    \
      (fftsPlusTaskInfo, stm, flag), stm)                                                          \
    X(LAUNCH, rtKernelLaunchFwk,                                                                   \
      (const char *opName, void *args, uint32_t argsSize, uint32_t flags, rtStream_t rtStream),    \
      (opName, args, argsSize, flags, rtStream), rtStream)                                         \
    X(LAUNCH, rtCpuKernelLaunch,                                                                   \
      (const void *soName, const void *kernelName, uint32_t numBlocks, const void *args,           \
       uint32_t argsSize, rtSmDesc_t *smDesc, rtStream_t stm),                                     \
      (soName, kernelName, numBlocks, args, argsSize, smDesc, stm), stm)                           \
    X(LAUNCH, rtAicpuKernelLaunch,                                                                 \
      (const rtKernelLaunchNames_t *launchNames, uint32_t numBlocks, const void *args,             \
       uint32_t argsSize, rtSmDesc_t *smDesc, rtStream_t stm),                                     \
      (launchNames, numBlocks, args, argsSize, smDesc, stm), stm)                                  \
    X(LAUNCH, rtLaunchKernelByFuncHandle,                                                          \
      (rtFuncHandle funcHandle, uint32_t numBlocks, rtLaunchArgsHandle argsHandle,                 \
       rtStream_t stm),                                                                            \
      (funcHandle, numBlocks, argsHandle, stm), stm)                                               \
    X(LAUNCH, rtLaunchKernelByFuncHandleV2,                                                        \
      (rtFuncHandle funcHandle, uint32_t numBlocks, rtLaunchArgsHandle argsHandle,                 \
       rtStream_t stm, const rtTaskCfgInfo_t *cfgInfo),                                            \
      (funcHandle, numBlocks, argsHandle, stm, cfgInfo), stm)                                      \
    X(LAUNCH, rtVectorCoreKernelLaunchWithHandle,                                                  \
      (void *hdl, const uint64_t tilingKey, uint32_t numBlocks, rtArgsEx_t *argsInfo,              \
       rtSmDesc_t *smDesc, rtStream_t stm, const rtTaskCfgInfo_t *cfgInfo),                        \
      (hdl, tilingKey, numBlocks, argsInfo, smDesc, stm, cfgInfo), stm)                            \
    X(LAUNCH, rtStarsTaskLaunch,                                                                   \
      (const void *taskSqe, uint32_t sqeLen, rtStream_t stm),                                      \
      (taskSqe, sqeLen, stm), stm)                                                                 \
    X(LAUNCH, rtStarsTaskLaunchWithFlag,                                                           \
      (const void *taskSqe, uint32_t sqeLen, rtStream_t stm, uint32_t flag),                       \
      (taskSqe, sqeLen, stm, flag), stm)                                                           \
    X(LAUNCH, rtCmoTaskLaunch,                                                                     \
      (rtCmoTaskInfo_t *taskInfo, rtStream_t stm, uint32_t flag),                                  \
      (taskInfo, stm, flag), stm)                                                                  \
    X(LAUNCH, rtCmoAddrTaskLaunch,                                                                 \
      (void *cmoAddrInfo, uint64_t destMax, rtCmoOpCode_t cmoOpCode, rtStream_t stm,               \
       uint32_t flag),                                                                             \
      (cmoAddrInfo, destMax, cmoOpCode, stm, flag), stm)                                           \
    X(LAUNCH, rtBarrierTaskLaunch,                                                                 \
      (rtBarrierTaskInfo_t *taskInfo, rtStream_t stm, uint32_t flag),                              \
      (taskInfo, stm, flag), stm)                                                                  \
    X(LAUNCH, rtMultipleTaskInfoLaunch,                                                            \
      (const void *taskInfo, rtStream_t stm),                                                      \
      (taskInfo, stm), stm)                                                                        \
    X(LAUNCH, rtMultipleTaskInfoLaunchWithFlag,                                                    \
      (const void *taskInfo, rtStream_t stm, const uint32_t flag),                                 \
      (taskInfo, stm, flag), stm)

/* Calls the shim uses but does not gate: it asks rtGetDevice which device a call is for, so every
 * way of switching (rtSetDevice, rtCtxCreate, rtCtxSetCurrent, ...) is covered. */
typedef void *rtContext_t;
rtError_t rtSetDevice(int32_t devId);
rtError_t rtGetDevice(int32_t *devId);
rtError_t rtCtxCreate(rtContext_t *createCtx, uint32_t flags, int32_t devId);
rtError_t rtCtxSetCurrent(rtContext_t currentCtx);
rtError_t rtCtxDestroy(rtContext_t destroyCtx);
rtError_t rtStreamCreate(rtStream_t *stm, int32_t priority);
rtError_t rtStreamDestroy(rtStream_t stm);
rtError_t rtStreamSynchronize(rtStream_t stm);

/* Events (runtime rt_external_event.h): the shim marks an offline container's launches with them
 * to bound its queued kernels (offline.max_kernels_in_flight) without draining the stream. */
typedef void *rtEvent_t;
rtError_t rtEventCreate(rtEvent_t *evt);
rtError_t rtEventRecord(rtEvent_t evt, rtStream_t stm);
rtError_t rtEventSynchronize(rtEvent_t evt);
rtError_t rtEventDestroy(rtEvent_t evt);

#define VNPU_DECLARE(KIND, name, params, args, ...) rtError_t name params;
VNPU_RUNTIME_HOOKS(VNPU_DECLARE)
#undef VNPU_DECLARE

#endif
