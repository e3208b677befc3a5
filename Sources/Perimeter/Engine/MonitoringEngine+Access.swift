extension MonitoringEngine {
    /// What the app may have of `device`'s location at `t`, from its authorization as of its latest
    /// record with the temporary grants that lapse by `t` lapsed (on a copy: nothing changes here).
    ///
    /// Live updates and ranging ask this before they hand the engine a record, for the updates and
    /// results that fall due before it, and after, for the record's own.
    public func locationAccess(of device: DeviceID, at t: Timestamp) -> LocationAccess {
        var authorization = devices[Int(device.index)].authorization
        _ = authorization.settle(at: t, grace: policy.spans.gracePeriod)
        return authorization.access(at: t, grace: policy.spans.gracePeriod, profile: policy.profile)
    }
}
