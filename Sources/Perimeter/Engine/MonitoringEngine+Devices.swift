extension MonitoringEngine {
    /// The time of `device`'s latest record; `nil` before its first.
    ///
    /// After a refused record, this says whether its device's clock ran up to it first (an answer the
    /// open prompt does not take is refused only then) or the record changed nothing.
    public func clock(of device: DeviceID) -> Timestamp? {
        let state = devices[Int(device.index)]
        return state.hasStarted ? state.lastTime : nil
    }

    /// The device's name.
    public func name(of device: DeviceID) -> String {
        devices[Int(device.index)].name
    }

    /// The input line (or record index) of `device`'s latest record.
    public func lastCause(of device: DeviceID) -> Int {
        devices[Int(device.index)].lastCause
    }
}
