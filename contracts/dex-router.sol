// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import "./safe-erc20.sol";
import "./token-approve.sol";

/// A router with the ABI and semantics of the public DEX-aggregator router's
/// `smartSwapByOrderId` / `smartSwapTo` (see shared/facts/dexrouter.md), written for
/// the local chain. Payer is always msg.sender; the receiver is msg.sender or `receiver`.
contract DexRouter {
    struct BaseRequest {
        uint256 fromToken;
        address toToken;
        uint256 fromTokenAmount;
        uint256 minReturnAmount;
        uint256 deadLine;
    }

    struct RouterPath {
        address[] mixAdapters;
        address[] assetTo;
        uint256[] rawData;
        bytes[] extraData;
        uint256 fromToken;
    }

    struct PMMSwapRequest {
        uint256 pathIndex;
        address payer;
        address fromToken;
        address toToken;
        uint256 fromTokenAmountMax;
        uint256 toTokenAmountMax;
        uint256 salt;
        uint256 deadLine;
        bool isPushOrder;
        bytes extension;
    }

    address public constant NATIVE = 0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE;
    uint256 private constant ADDRESS_MASK = (1 << 160) - 1;
    uint256 private constant REVERSE_BIT = 1 << 255;

    address public immutable wrappedNative;
    TokenApproveProxy public immutable approveProxy;
    uint256 private locked = 1;

    event SwapOrderId(uint256 id);
    event OrderRecord(address fromToken, address toToken, address sender, uint256 fromAmount, uint256 returnAmount);

    constructor(address wrapped, TokenApproveProxy proxy) {
        wrappedNative = wrapped;
        approveProxy = proxy;
    }

    modifier nonReentrant() {
        require(locked == 1, "Route: reentrant call");
        locked = 2;
        _;
        locked = 1;
    }

    /// Only the wrapped-native contract pays native coin in (on unwrap).
    receive() external payable {
        require(msg.sender == wrappedNative, "Route: native only from wrapped");
    }

    function smartSwapByOrderId(
        uint256 orderId,
        BaseRequest calldata baseRequest,
        uint256[] calldata batchesAmount,
        RouterPath[][] calldata batches,
        PMMSwapRequest[] calldata /* unused by this entry point */
    ) external payable nonReentrant returns (uint256 returnAmount) {
        emit SwapOrderId(orderId);
        return _smartSwap(baseRequest, batchesAmount, batches, msg.sender);
    }

    function smartSwapTo(
        uint256 orderId,
        address receiver,
        BaseRequest calldata baseRequest,
        uint256[] calldata batchesAmount,
        RouterPath[][] calldata batches,
        PMMSwapRequest[] calldata /* unused by this entry point */
    ) external payable nonReentrant returns (uint256 returnAmount) {
        require(receiver != address(0), "Route: receiver is zero");
        emit SwapOrderId(orderId);
        return _smartSwap(baseRequest, batchesAmount, batches, receiver);
    }

    /// Native <-> wrapped native for msg.sender: rawdata bit 255 = reversed (wrapped -> native),
    /// low 128 bits = amount. Wrapping sends msg.value == amount; unwrapping pulls the wrapped
    /// token through the approval pair, like any ERC-20 input.
    function swapWrap(uint256 orderId, uint256 rawdata) external payable nonReentrant {
        emit SwapOrderId(orderId);
        _wrap((rawdata & REVERSE_BIT) != 0, rawdata & type(uint128).max, msg.sender, 0);
    }

    /// The same for another receiver; the tokens must be exactly native/wrapped or wrapped/native.
    function swapWrapToWithBaseRequest(
        uint256 orderId,
        address receiver,
        BaseRequest calldata req
    ) external payable nonReentrant {
        require(receiver != address(0), "Route: receiver is zero");
        require(req.deadLine >= block.timestamp, "Route: expired");
        address from = address(uint160(req.fromToken & ADDRESS_MASK));
        bool reversed;
        if (from == NATIVE && req.toToken == wrappedNative) reversed = false;
        else if (from == wrappedNative && req.toToken == NATIVE) reversed = true;
        else revert("SwapWrap: invalid token pair");
        emit SwapOrderId(orderId);
        _wrap(reversed, req.fromTokenAmount, receiver, req.minReturnAmount);
    }

    function _wrap(bool reversed, uint256 amount, address receiver, uint256 minReturn) private {
        require(amount > 0, "Route: fromTokenAmount must be > 0");
        require(amount >= minReturn, "Min return not reached");
        if (!reversed) {
            require(msg.value == amount, "SwapWrap: value not match");
            IWrappedNative(wrappedNative).deposit{value: amount}();
            SafeERC20Calls.safeTransfer(wrappedNative, receiver, amount);
            emit OrderRecord(NATIVE, wrappedNative, msg.sender, amount, amount);
        } else {
            require(msg.value == 0, "Route: msg.value must be 0 for token input");
            approveProxy.claimTokens(wrappedNative, msg.sender, address(this), amount);
            IWrappedNative(wrappedNative).withdraw(amount);
            SafeERC20Calls.sendNative(receiver, amount);
            emit OrderRecord(wrappedNative, NATIVE, msg.sender, amount, amount);
        }
    }

    function _smartSwap(
        BaseRequest calldata req,
        uint256[] calldata batchesAmount,
        RouterPath[][] calldata batches,
        address receiver
    ) private returns (uint256 returnAmount) {
        address fromToken = _validate(req, batchesAmount, batches);
        // Native coin the router held before this call (forced sends) is never refunded.
        uint256 nativeFloor = address(this).balance - msg.value;
        uint256 before = _balanceOf(req.toToken, receiver);
        _runPaths(fromToken, req.toToken, batchesAmount, batches, receiver);
        _settleNative(fromToken, req.toToken, receiver, nativeFloor);
        returnAmount = _balanceOf(req.toToken, receiver) - before;
        require(returnAmount >= req.minReturnAmount, "Min return not reached");
        emit OrderRecord(fromToken, req.toToken, msg.sender, req.fromTokenAmount, returnAmount);
    }

    function _validate(
        BaseRequest calldata req,
        uint256[] calldata batchesAmount,
        RouterPath[][] calldata batches
    ) private view returns (address fromToken) {
        require(req.deadLine >= block.timestamp, "Route: expired");
        require(req.fromTokenAmount > 0, "Route: fromTokenAmount must be > 0");
        require(batchesAmount.length == batches.length, "length mismatch");
        fromToken = address(uint160(req.fromToken & ADDRESS_MASK));
        if (fromToken == NATIVE) {
            require(msg.value == req.fromTokenAmount, "Route: msg.value must equal fromTokenAmount");
        } else {
            require(msg.value == 0, "Route: msg.value must be 0 for token input");
        }
        uint256 total;
        for (uint256 i = 0; i < batchesAmount.length; i++) total += batchesAmount[i];
        require(total <= req.fromTokenAmount, "Route: batches exceed fromTokenAmount");
    }

    function _runPaths(
        address fromToken,
        address toToken,
        uint256[] calldata batchesAmount,
        RouterPath[][] calldata batches,
        address receiver
    ) private {
        bool nativeIn = fromToken == NATIVE;
        address firstToken = nativeIn ? wrappedNative : fromToken;
        address finalTo = toToken == NATIVE ? address(this) : receiver;
        for (uint256 i = 0; i < batches.length; i++) {
            _runPath(batches[i], batchesAmount[i], firstToken, nativeIn, finalTo);
        }
    }

    function _settleNative(address fromToken, address toToken, address receiver, uint256 nativeFloor) private {
        if (toToken == NATIVE) {
            uint256 wrapped = IERC20Minimal(wrappedNative).balanceOf(address(this));
            if (wrapped > 0) IWrappedNative(wrappedNative).withdraw(wrapped);
            SafeERC20Calls.sendNative(receiver, wrapped);
        }
        if (fromToken == NATIVE && address(this).balance > nativeFloor) {
            // Value not assigned to any pool (batch sum or hop-0 weights below the total).
            SafeERC20Calls.sendNative(msg.sender, address(this).balance - nativeFloor);
        }
    }

    function _runPath(
        RouterPath[] calldata hops,
        uint256 amount,
        address firstToken,
        bool nativeIn,
        address finalTo
    ) private {
        require(hops.length > 0, "Route: empty path");
        // Hop 0 pulls from the payer: its token must be the request's input token.
        require(address(uint160(hops[0].fromToken & ADDRESS_MASK)) == firstToken, "Route: path fromToken mismatch");
        for (uint256 j = 0; j < hops.length; j++) {
            RouterPath calldata hop = hops[j];
            address to = finalTo;
            if (j + 1 < hops.length) {
                to = hops[j + 1].assetTo.length == 1 ? hops[j + 1].assetTo[0] : address(this);
            }
            address token = address(uint160(hop.fromToken & ADDRESS_MASK));
            if (j == 0) {
                _splitInput(hop, token, amount, nativeIn ? 2 : 1);
            } else {
                _splitInput(hop, token, IERC20Minimal(token).balanceOf(address(this)), 0);
            }
            _callAdapters(hop, to);
        }
    }

    /// source: 0 = router balance, 1 = pull from payer via the approval pair, 2 = wrap msg.value.
    function _splitInput(RouterPath calldata hop, address token, uint256 amount, uint8 source) private {
        uint256 n = hop.mixAdapters.length;
        require(
            n > 0 && hop.assetTo.length == n && hop.rawData.length == n && hop.extraData.length == n,
            "length mismatch"
        );
        uint256 totalWeight;
        uint256 spent;
        for (uint256 k = 0; k < n; k++) {
            uint256 weight = (hop.rawData[k] >> 160) & 0xffff;
            totalWeight += weight;
            require(totalWeight <= 10000, "totalWeight can not exceed 10000 limit");
            // The last pool of a hop whose weights sum to 10000 takes the rounding
            // remainder, so nothing is stranded in the router.
            uint256 part = (k == n - 1 && totalWeight == 10000) ? amount - spent : (amount * weight) / 10000;
            spent += part;
            if (part == 0) continue;
            if (source == 1) {
                approveProxy.claimTokens(token, msg.sender, hop.assetTo[k], part);
            } else {
                if (source == 2) IWrappedNative(wrappedNative).deposit{value: part}();
                SafeERC20Calls.safeTransfer(token, hop.assetTo[k], part);
            }
        }
    }

    function _callAdapters(RouterPath calldata hop, address to) private {
        for (uint256 k = 0; k < hop.mixAdapters.length; k++) {
            uint256 raw = hop.rawData[k];
            address pool = address(uint160(raw & ADDRESS_MASK));
            bytes4 selector = (raw & REVERSE_BIT) != 0 ? IAdapter.sellQuote.selector : IAdapter.sellBase.selector;
            // One extra word after the ABI arguments (the payer), as the public router does.
            bytes memory data = abi.encodePacked(
                abi.encodeWithSelector(selector, to, pool, hop.extraData[k]),
                bytes32(uint256(uint160(msg.sender)))
            );
            address adapter = hop.mixAdapters[k];
            require(adapter.code.length > 0, "Route: adapter has no code");
            (bool ok, bytes memory ret) = adapter.call(data);
            if (!ok) {
                assembly {
                    revert(add(ret, 32), mload(ret))
                }
            }
        }
    }

    function _balanceOf(address token, address who) private view returns (uint256) {
        return token == NATIVE ? who.balance : IERC20Minimal(token).balanceOf(who);
    }
}

interface IAdapter {
    function sellBase(address to, address pool, bytes calldata moreInfo) external;
    function sellQuote(address to, address pool, bytes calldata moreInfo) external;
}
