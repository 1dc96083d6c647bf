/*
 * The subset of Huawei's DCMI C API (libdcmi.so) that vNPU calls, written from the documented
 * signatures and struct layouts (docs/node-agent.md, "DCMI"). The fake library in this directory
 * implements it; the Java binding (DcmiLibrary) mirrors it field for field.
 */
#ifndef VNPU_FAKE_DCMI_INTERFACE_API_H
#define VNPU_FAKE_DCMI_INTERFACE_API_H

#define MAX_CHIP_NAME_LEN 32
#define DIE_ID_COUNT 5

#define DCMI_OK 0
#define DCMI_ERR_CODE_INVALID_PARAMETER (-8001)
#define DCMI_ERR_CODE_INNER_ERR (-8005)
#define DCMI_ERR_CODE_INVALID_DEVICE_ID (-8007)
#define DCMI_ERR_CODE_DEVICE_NOT_EXIST (-8008)
#define DCMI_ERR_CODE_NOT_REDAY (-8012)
#define DCMI_ERR_CODE_NOT_SUPPORT (-8255)

enum dcmi_unit_type { NPU_TYPE = 0, MCU_TYPE = 1, CPU_TYPE = 2, INVALID_TYPE = 0xFF };
enum dcmi_die_type { NDIE, VDIE };

struct dcmi_chip_info {
    unsigned char chip_type[MAX_CHIP_NAME_LEN];
    unsigned char chip_name[MAX_CHIP_NAME_LEN];
    unsigned char chip_ver[MAX_CHIP_NAME_LEN];
    unsigned int aicore_cnt;
};

struct dcmi_hbm_info {
    unsigned long long memory_size; /* MB */
    unsigned int freq;              /* MHz */
    unsigned long long memory_usage; /* MB */
    int temp;
    unsigned int bandwith_util_rate;
};

struct dcmi_get_memory_info_stru {
    unsigned long long memory_size;      /* MB */
    unsigned long long memory_available; /* MB */
    unsigned int freq;
    unsigned long hugepagesize; /* KB */
    unsigned long hugepages_total;
    unsigned long hugepages_free;
    unsigned int utiliza;
    unsigned char reserve[60];
};

struct dcmi_die_id {
    unsigned int soc_die[DIE_ID_COUNT];
};

struct dcmi_proc_mem_info {
    int proc_id;
    unsigned long proc_mem_usage; /* bytes */
};

int dcmi_init(void);
int dcmi_get_card_list(int *card_num, int *card_list, int list_len);
int dcmi_get_device_num_in_card(int card_id, int *device_num);
int dcmi_get_device_type(int card_id, int device_id, enum dcmi_unit_type *device_type);
int dcmi_get_device_logic_id(int *device_logic_id, int card_id, int device_id);
int dcmi_get_device_chip_info(int card_id, int device_id, struct dcmi_chip_info *chip_info);
int dcmi_get_device_health(int card_id, int device_id, unsigned int *health);
int dcmi_get_device_share_enable(int card_id, int device_id, int *enable_flag);
int dcmi_get_device_hbm_info(int card_id, int device_id, struct dcmi_hbm_info *hbm_info);
int dcmi_get_device_memory_info_v3(int card_id, int device_id,
                                   struct dcmi_get_memory_info_stru *memory_info);
int dcmi_get_device_utilization_rate(int card_id, int device_id, int input_type,
                                     unsigned int *utilization_rate);
int dcmi_get_device_temperature(int card_id, int device_id, int *temperature);
int dcmi_get_device_power_info(int card_id, int device_id, int *power); /* tenths of a watt */
int dcmi_get_device_die_v2(int card_id, int device_id, enum dcmi_die_type input_type,
                           struct dcmi_die_id *die_id);
int dcmi_get_device_resource_info(int card_id, int device_id, struct dcmi_proc_mem_info *proc_info,
                                  int *proc_num);

#endif
