/// The version of modelgen, printed by `--version` and written into generated headers.
public enum ModelGenVersion {
    public static let current = "0.1.0"
}
