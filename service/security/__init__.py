"""What a browser may not make Hearth do: answer a Host it does not serve (DNS rebinding), or
change state on behalf of a page of another origin (cross-site request forgery)."""
