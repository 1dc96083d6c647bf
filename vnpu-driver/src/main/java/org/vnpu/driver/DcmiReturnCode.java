package org.vnpu.driver;

import java.util.Arrays;

/**
 * DCMI return codes with their documented names (two codes are documented without a name), for
 * error messages.
 */
enum DcmiReturnCode {
  OK(0, "DCMI_OK", "success"),
  INVALID_PARAMETER(-8001, "DCMI_ERR_CODE_INVALID_PARAMETER", "invalid input parameter"),
  OPER_NOT_PERMITTED(-8002, "DCMI_ERR_CODE_OPER_NOT_PERMITTED", "permission error"),
  MEM_OPERATE_FAIL(-8003, "DCMI_ERR_CODE_MEM_OPERATE_FAIL", "memory API operation failed"),
  SECURE_FUN_FAIL(-8004, "DCMI_ERR_CODE_SECURE_FUN_FAIL", "secure function failed"),
  INNER_ERR(-8005, "DCMI_ERR_CODE_INNER_ERR", "internal error"),
  TIME_OUT(-8006, "DCMI_ERR_CODE_TIME_OUT", "response timeout"),
  INVALID_DEVICE_ID(-8007, "DCMI_ERR_CODE_INVALID_DEVICE_ID", "invalid device ID"),
  DEVICE_NOT_EXIST(-8008, "DCMI_ERR_CODE_DEVICE_NOT_EXIST", "device not found"),
  IOCTL_FAIL(-8009, "DCMI_ERR_CODE_IOCTL_FAIL", "ioctl failed"),
  SEND_MSG_FAIL(-8010, "DCMI_ERR_CODE_SEND_MSG_FAIL", "message send failed"),
  RECV_MSG_FAIL(-8011, "DCMI_ERR_CODE_RECV_MSG_FAIL", "message receive failed"),
  NOT_READY(-8012, "DCMI_ERR_CODE_NOT_REDAY", "not ready; retry"),
  NOT_SUPPORT_IN_CONTAINER(
      -8013, "DCMI_ERR_CODE_NOT_SUPPORT_IN_CONTAINER", "not supported in a container"),
  FILE_OPERATION(-8014, null, "file operation failed"),
  RESET_FAIL(-8015, "DCMI_ERR_CODE_RESET_FAIL", "reset failed"),
  ABORT_OPERATE(-8016, "DCMI_ERR_CODE_ABORT_OPERATE", "reset cancelled"),
  IS_UPGRADING(-8017, "DCMI_ERR_CODE_IS_UPGRADING", "upgrade in progress"),
  RESOURCE_OCCUPIED(-8020, "DCMI_ERR_CODE_RESOURCE_OCCUPIED", "device resources occupied"),
  PARTITION_CHECK(-8022, null, "partition check inconsistent"),
  CONFIG_INFO_NOT_EXIST(
      -8023, "DCMI_ERR_CODE_CONFIG_INFO_NOT_EXIST", "configuration information does not exist"),
  NOT_SUPPORT(-8255, "DCMI_ERR_CODE_NOT_SUPPORT", "device ID or feature not supported");

  private final int code;
  private final String symbol;
  private final String meaning;

  DcmiReturnCode(int code, String symbol, String meaning) {
    this.code = code;
    this.symbol = symbol;
    this.meaning = meaning;
  }

  /** {@code DCMI_ERR_CODE_INNER_ERR (-8005, internal error)}, or the bare code when unknown. */
  static String describe(int code) {
    return Arrays.stream(values())
        .filter(value -> value.code == code)
        .findFirst()
        .map(
            value ->
                value.symbol == null
                    ? "DCMI error " + code + " (" + value.meaning + ")"
                    : value.symbol + " (" + code + ", " + value.meaning + ")")
        .orElse("unknown DCMI return code " + code);
  }

  /** Whether {@code code} is this one. */
  boolean is(int code) {
    return this.code == code;
  }
}
