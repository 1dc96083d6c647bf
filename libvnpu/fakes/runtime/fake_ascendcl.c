/*
 * A thin fake libascendcl.so over the fake libruntime.so: the AscendCL calls a framework makes,
 * forwarded to the runtime as CANN's AscendCL does (aclrtMalloc pads like HRT memory.cpp), so that
 * test programs exercise the shim through the same symbol resolution as real workloads.
 */
#include "rt_api.h"

#include <stddef.h>
#include <stdint.h>

typedef int aclError;
typedef void *aclrtStream;
typedef void *aclrtFuncHandle;

aclError aclrtSetDevice(int32_t deviceId) { return rtSetDevice(deviceId); }

aclError aclrtMalloc(void **devPtr, size_t size, int policy) {
    (void)policy;
    return rtMalloc(devPtr, (size + 32 + 32 - 1) / 32 * 32, 0, 0);
}

aclError aclrtMallocAlign32(void **devPtr, size_t size, int policy) {
    (void)policy;
    return rtMalloc(devPtr, (size + 32 - 1) / 32 * 32, 0, 0);
}

aclError aclrtFree(void *devPtr) { return rtFree(devPtr); }

aclError aclrtGetMemInfo(int attr, size_t *free, size_t *total) {
    return rtMemGetInfoEx(attr, free, total);
}

aclError aclrtCreateStream(aclrtStream *stream) { return rtStreamCreate(stream, 0); }

aclError aclrtSynchronizeStream(aclrtStream stream) { return rtStreamSynchronize(stream); }

aclError aclrtDestroyStream(aclrtStream stream) { return rtStreamDestroy(stream); }

aclError aclrtLaunchKernel(aclrtFuncHandle funcHandle, uint32_t numBlocks, const void *argsData,
                           size_t argsSize, aclrtStream stream) {
    (void)argsData;
    (void)argsSize;
    return rtLaunchKernelByFuncHandleV3(funcHandle, numBlocks, NULL, stream, NULL);
}
