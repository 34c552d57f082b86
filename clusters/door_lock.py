"""Door Lock cluster (0x0101): lock, unlock, unlock with timeout, auto-relock and a remote PIN.

In Matter, LockDoor / UnlockDoor / UnlockWithTimeout need a *timed* invoke; this server does not
know about transport timing — the Matter bridge enforces the timed interaction, every other caller
(agent tools, scenarios) calls the commands directly.

The PIN is a constructor option (no user/credential database: the USR feature is not offered).
PINCode arrives as octets; callers may give the digits ("1234"), their ASCII hex ("31323334") or
bytes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import clusters.official as Objects
from clusters.base import ClusterServer, EventPriority, command
from clusters.requester import current_requester
from clusters.runtime import TimerHandle
from clusters.status import HomeError, Status
from clusters.values import Constraint

Feature = Objects.DoorLock.Bitmaps.Feature
LockState = Objects.DoorLock.Enums.DlLockState
OperatingMode = Objects.DoorLock.Enums.OperatingModeEnum
LockOperationType = Objects.DoorLock.Enums.LockOperationTypeEnum
Source = Objects.DoorLock.Enums.OperationSourceEnum
OperationError = Objects.DoorLock.Enums.OperationErrorEnum
AlarmCode = Objects.DoorLock.Enums.AlarmCodeEnum
SupportedModes = Objects.DoorLock.Bitmaps.DlSupportedOperatingModes

PIN_ATTRIBUTES = (
    "NumberOfPINUsersSupported",
    "MaxPINCodeLength",
    "MinPINCodeLength",
    "WrongCodeEntryLimit",
    "UserCodeTemporaryDisableTime",
)
REMOTE_PIN_ATTRIBUTES = ("RequirePINforRemoteOperation",)
# SupportedOperatingModes uses inverted logic in Matter: a bit set to 1 marks an UNSUPPORTED mode.
SUPPORTED_MODES = {
    int(OperatingMode.kNormal),
    int(OperatingMode.kVacation),
    int(OperatingMode.kPrivacy),
    int(OperatingMode.kNoRemoteLockUnlock),
}
UNSUPPORTED_MODE_BITS = int(SupportedModes.kPassage)
# Modes in which remote lock/unlock commands are refused.
NO_REMOTE_MODES = {int(OperatingMode.kPrivacy), int(OperatingMode.kNoRemoteLockUnlock)}


class DoorLockServer(ClusterServer):
    """A door lock; motion is instant.

    Constructor options: ``pin`` (digits, or None for no PIN; a PIN turns on the PinCredential and
    CredentialsOverTheAirAccess features and RequirePINforRemoteOperation), ``auto_relock_s``
    (AutoRelockTime, 0 = off), ``lock_type`` (DlLockType value, default DeadBolt), ``locked``
    (initial state, default True), plus ``features`` and ``values``.
    """

    __slots__ = ("_lockout", "_relock", "_wrong_attempts", "pin")

    cluster_name = "DoorLock"
    events = ("DoorLockAlarm", "LockOperation", "LockOperationError")
    revision = 7
    defaults = {
        "LockState": int(LockState.kLocked),
        "LockType": 0,
        "ActuatorEnabled": True,
        "OperatingMode": int(OperatingMode.kNormal),
        "SupportedOperatingModes": UNSUPPORTED_MODE_BITS,
        "AutoRelockTime": 0,
        "NumberOfPINUsersSupported": 1,
        "MaxPINCodeLength": 8,
        "MinPINCodeLength": 4,
        "WrongCodeEntryLimit": 5,
        "UserCodeTemporaryDisableTime": 60,
        "RequirePINforRemoteOperation": True,
    }
    constraints = {
        "OperatingMode": Constraint(allowed=tuple(sorted(SUPPORTED_MODES))),
        "WrongCodeEntryLimit": Constraint(1, 255),
        "UserCodeTemporaryDisableTime": Constraint(1, 255),
    }

    def __init__(
        self,
        *,
        pin: str | None = None,
        auto_relock_s: int = 0,
        lock_type: int = 0,
        locked: bool = True,
        features: int | None = None,
        values: Mapping[str, Any] | None = None,
    ) -> None:
        if pin is not None and (not pin.isdigit() or not 4 <= len(pin) <= 8):
            raise ValueError("pin must be 4 to 8 digits")
        if features is None:
            features = int(Feature.kPinCredential) | int(Feature.kCredentialsOverTheAirAccess) if pin else 0
        self.pin = pin
        super().__init__(features=features)
        self._values["AutoRelockTime"] = auto_relock_s
        self._values["LockType"] = lock_type
        self._values["LockState"] = int(LockState.kLocked if locked else LockState.kUnlocked)
        self._relock: TimerHandle | None = None
        self._lockout: TimerHandle | None = None
        self._wrong_attempts = 0
        for name, value in (values or {}).items():
            self.restore(name, value)

    def initial_values(self) -> dict[str, Any]:
        out = {k: v for k, v in self.defaults.items() if k not in PIN_ATTRIBUTES + REMOTE_PIN_ATTRIBUTES}
        if self.has_feature(Feature.kPinCredential):
            out.update({k: self.defaults[k] for k in PIN_ATTRIBUTES})
            if self.has_feature(Feature.kCredentialsOverTheAirAccess):
                out["RequirePINforRemoteOperation"] = True
        return out

    # ----------------------------------------------------------------------------- public API
    @property
    def is_locked(self) -> bool:
        return bool(self.read("LockState") == int(LockState.kLocked))

    @property
    def locked_out(self) -> bool:
        return self._lockout is not None

    def operate_manually(self, locked: bool) -> None:
        """Someone turns the thumb-turn or key (scenario injection): no PIN, no operating-mode check."""
        self._cancel_relock()
        self._set_locked(locked, Source.kManual)
        if not locked:
            self._schedule_relock(self.read("AutoRelockTime"))

    # ----------------------------------------------------------------------------- commands
    def validate_invoke(self, name: str, args: Mapping[str, Any] | None) -> dict[str, Any]:
        args = dict(args or {})
        for key in ("PINCode", "pinCode", "pin_code", "PinCode", "pin"):
            if key in args:
                args["PINCode"] = _pin_to_hex(args.pop(key))
        return super().validate_invoke(name, args)

    @command("LockDoor")
    def lock_door(self, PINCode: str | None = None) -> None:
        self._authorise(PINCode, "LockDoor", LockOperationType.kLock)
        self._cancel_relock()
        self._set_locked(True, Source.kRemote)

    @command("UnlockDoor")
    def unlock_door(self, PINCode: str | None = None) -> None:
        self._authorise(PINCode, "UnlockDoor", LockOperationType.kUnlock)
        self._cancel_relock()
        self._set_locked(False, Source.kRemote)
        self._schedule_relock(self.read("AutoRelockTime"))

    @command("UnlockWithTimeout", constraints={"timeout": Constraint(1, 0xFFFF)})
    def unlock_with_timeout(self, timeout: int, PINCode: str | None = None) -> None:
        self._authorise(PINCode, "UnlockWithTimeout", LockOperationType.kUnlock)
        self._cancel_relock()
        self._set_locked(False, Source.kRemote)
        self._schedule_relock(timeout)

    # ----------------------------------------------------------------------------- helpers
    def _authorise(self, pin_hex: str | None, what: str, operation: int) -> None:
        """Refuse (state unchanged, LockOperationError logged) unless the lock may be operated remotely."""
        try:
            self._check_remote(pin_hex, what)
        except HomeError as error:
            reason = {
                "WRONG_PIN": OperationError.kInvalidCredential,
                "PIN_REQUIRED": OperationError.kInvalidCredential,
                "LOCKED_OUT": OperationError.kRestricted,
                "REMOTE_DISABLED": OperationError.kRestricted,
            }
            self.emit_event(
                "LockOperationError",
                {
                    "lockOperationType": int(operation),
                    "operationSource": int(Source.kRemote),
                    "operationError": int(reason.get(error.reason, OperationError.kUnspecified)),
                    "userIndex": None,
                    "fabricIndex": self._fabric(),
                    "sourceNode": None,
                },
            )
            raise

    @staticmethod
    def _fabric() -> int | None:
        return current_requester().fabric_index or None

    def _check_remote(self, pin_hex: str | None, what: str) -> None:
        if not self.read("ActuatorEnabled"):
            raise HomeError.refused(
                Status.INVALID_IN_STATE, f"DoorLock.{what}: the actuator is disabled", reason="ACTUATOR_DISABLED"
            )
        mode = self.read("OperatingMode")
        if mode in NO_REMOTE_MODES:
            raise HomeError.refused(
                Status.FAILURE,
                f"DoorLock.{what}: remote operation is disabled in OperatingMode {mode}",
                allowed={"OperatingMode": [int(OperatingMode.kNormal), int(OperatingMode.kVacation)]},
                reason="REMOTE_DISABLED",
            )
        if not (self.has_feature(Feature.kPinCredential) and self.pin):
            return  # no credential to check
        required = bool(self._values.get("RequirePINforRemoteOperation", False))
        if pin_hex is None and not required:
            return
        if self._lockout is not None:
            raise HomeError.refused(
                Status.FAILURE,
                f"DoorLock.{what}: too many wrong PIN codes, PIN entry disabled for now",
                reason="LOCKED_OUT",
            )
        if pin_hex is None:
            raise HomeError.refused(
                Status.FAILURE,
                f"DoorLock.{what} needs a PINCode (RequirePINforRemoteOperation)",
                allowed={"PINCode": "the lock's PIN"},
                reason="PIN_REQUIRED",
            )
        if not _pin_matches(pin_hex, self.pin):
            self._wrong_attempts += 1
            if self._wrong_attempts >= self.read("WrongCodeEntryLimit") and self.runtime is not None:
                self._wrong_attempts = 0
                self._lockout = self.runtime.call_later(self.read("UserCodeTemporaryDisableTime"), self._end_lockout)
                self.emit_event(
                    "DoorLockAlarm", {"alarmCode": int(AlarmCode.kWrongCodeEntryLimit)}, EventPriority.CRITICAL
                )
            raise HomeError.refused(Status.FAILURE, f"DoorLock.{what}: wrong PINCode", reason="WRONG_PIN")
        self._wrong_attempts = 0

    def _end_lockout(self) -> None:
        self._lockout = None

    def _set_locked(self, locked: bool, source: int) -> None:
        self.set("LockState", int(LockState.kLocked if locked else LockState.kUnlocked))
        self.emit_event(
            "LockOperation",
            {
                "lockOperationType": int(LockOperationType.kLock if locked else LockOperationType.kUnlock),
                "operationSource": int(source),
                "userIndex": None,
                "fabricIndex": self._fabric() if source == Source.kRemote else None,
                "sourceNode": None,
            },
        )

    def _cancel_relock(self) -> None:
        if self._relock is not None:
            self._relock.cancel()
            self._relock = None

    def _schedule_relock(self, delay_s: int) -> None:
        if delay_s and self.runtime is not None:
            self._relock = self.runtime.call_later(delay_s, self._auto_relock)

    def _auto_relock(self) -> None:
        self._relock = None
        self._set_locked(True, Source.kAuto)


def _pin_to_hex(value: object) -> Any:
    """Octet-string PINs as hex: bytes → hex; digits that are not valid hex (odd length) → ASCII hex."""
    if isinstance(value, bytes | bytearray):
        return bytes(value).hex()
    if isinstance(value, str):
        try:
            bytes.fromhex(value)
        except ValueError:
            return value.encode("utf-8").hex()
    return value


def _pin_matches(pin_hex: str, pin: str) -> bool:
    """The PIN as its ASCII octets (what a Matter controller sends) or as the digits themselves."""
    try:
        as_text = bytes.fromhex(pin_hex).decode("ascii")
    except (ValueError, UnicodeDecodeError):
        as_text = None
    return as_text == pin or pin_hex == pin
